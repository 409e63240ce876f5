// Slurm-style host lists ("nid[001-003,010],x1000c[0-1]s[0-7]b0n0") and PBS nodefiles.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace ezpz {

// Expands a host list. Every bracket group of a name is expanded (the leftmost varies slowest), ranges
// keep the zero padding of their lower bound ("[08-10]" → 08 09 10), commas inside brackets separate
// ranges and commas outside separate names. Order is kept, duplicates too. Throws UserError pointing at
// the offending character (source shown as `what`) when the list is malformed or would expand to more
// than `max_hosts` names.
std::vector<std::string> expand_hostlist(std::string_view list, std::string_view what = "host list",
                                         size_t max_hosts = 10'000'000);

// The first name of a host list, without expanding the rest.
std::string first_host(std::string_view list, std::string_view what = "host list");

// A compact list for `hosts`: duplicates dropped, names sorted (numerically within each field), and
// every numeric field that varies turned into a bracket group, several per name where the hosts form a
// grid ("x1000c[0-1]s[0-7]b0n0"). expand_hostlist(compress_hostlist(h)) is h sorted and deduplicated.
std::string compress_hostlist(const std::vector<std::string>& hosts);

// Host names from a PBS nodefile's text (one per line, repeated once per slot): first occurrence
// order, duplicates and blank lines dropped.
std::vector<std::string> read_nodefile(std::string_view text);

}  // namespace ezpz
