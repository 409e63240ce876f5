// Slurm-style host lists ("nid[001-003,010],x1000c[0-1]s[0-7]b0n0") and PBS nodefiles.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "ezpz/util/limits.hpp"

namespace ezpz::core {

// How much expanding may produce: names, and bytes of names (their lengths added).
struct HostLimits {
  size_t names = k_max_hosts;
  size_t bytes = k_max_host_bytes;
};

// Expands a host list. Commas outside brackets separate names; every bracket group of a name is
// expanded (the leftmost varies slowest, so "x1000c[0-1]s[0-1]b0n0" gives c0s0 c0s1 c1s0 c1s1); commas
// inside brackets separate ranges, kept in the order written. Padding follows Slurm: a range is as wide
// as its lower bound is written ("[08-10]" → 08 09 10, "[8-10]" → 8 9 10, "[098-101]" → 098 … 101,
// "[1-003]" → 1 2 3). Order is kept, duplicates too; an empty list gives no names. Throws UserError
// pointing at the offending character (source shown as `what`) when the list is malformed, or at the
// name that crosses `limits` when the names, with those of `already` (what earlier lists of the same
// output took), would be more than `limits` allows; nothing is expanded before all of it is counted.
std::vector<std::string> expand_hostlist(std::string_view list, std::string_view what = "host list",
                                         HostLimits limits = {}, HostLimits already = {0, 0});

// The first name of a host list, without expanding it. The whole list is still checked: a malformed
// list (or an empty one) throws like expand_hostlist.
std::string first_host(std::string_view list, std::string_view what = "host list");

// A compact list for `hosts`: empty names and duplicates dropped, names sorted (text pieces as text,
// digit runs by value, then by written width), and every numeric field that varies turned into a bracket
// group, several per name where the hosts form a grid ("x1000c[0-1]s[0-7]b0n0"); widths are kept
// ("nid08,nid09,nid10" → "nid[08-10]"). Only neighbours in that order are merged, so
// expand_hostlist(compress_hostlist(h)) is exactly h sorted that way and deduplicated. Throws UserError
// for a name containing ',', '[', ']' or whitespace, which no list could express.
std::string compress_hostlist(const std::vector<std::string>& hosts);

// Host names from a PBS nodefile's text (one per line, repeated once per slot): first occurrence
// order, duplicates, surrounding whitespace (CR of CRLF too) and blank lines dropped. Throws UserError
// naming `what` when it names more than `max_hosts` different hosts.
std::vector<std::string> read_nodefile(std::string_view text, std::string_view what = "host file",
                                       size_t max_hosts = k_max_hosts);

}  // namespace ezpz::core
