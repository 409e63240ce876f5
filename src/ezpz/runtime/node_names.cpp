// Node identities and addresses of the allocation's hosts.
#include "ezpz/runtime/node_names.hpp"

#include <arpa/inet.h>
#include <netdb.h>
#include <sys/socket.h>

namespace ezpz::core {

NodeNames::NodeNames(const std::vector<std::string>& hosts, const Failover& failover) : m_hosts(hosts) {
  if (!failover.node_key.empty()) {
    m_node_key = compile_regex(failover.node_key, failover.node_key_loc, "failover.node_key");
  }
  for (const auto& host : hosts) {
    m_by_key.emplace(key(host), host);
  }
}

std::string NodeNames::key(const std::string& name) const {
  std::string short_name = name.substr(0, name.find('.'));
  if (!m_node_key) return short_name;
  auto match = m_node_key->search_groups(name);
  if (!match) return short_name;
  std::string id = match->size() > 1 && (*match)[1] ? *(*match)[1] : *(*match)[0];
  return id.empty() ? short_name : id;
}

std::optional<std::string> NodeNames::host_named(const std::string& name) const {
  auto found = m_by_key.find(key(name));
  if (found == m_by_key.end() || found->first.empty()) return std::nullopt;
  return found->second;
}

std::optional<std::string> NodeNames::host_at(const std::string& address) {
  if (!m_by_address) {
    m_by_address.emplace();
    for (const auto& host : m_hosts) {
      addrinfo hints{};
      hints.ai_family = AF_UNSPEC;
      hints.ai_socktype = SOCK_STREAM;
      addrinfo* list = nullptr;
      if (getaddrinfo(host.c_str(), nullptr, &hints, &list) != 0) continue;
      for (addrinfo* entry = list; entry != nullptr; entry = entry->ai_next) {
        char text[INET6_ADDRSTRLEN] = {};
        if (getnameinfo(entry->ai_addr, entry->ai_addrlen, text, sizeof text, nullptr, 0, NI_NUMERICHOST) == 0) {
          // An address of two hosts proves nothing about either: it maps to "".
          auto [at, added] = m_by_address->emplace(text, host);
          if (!added && at->second != host) at->second.clear();
        }
      }
      freeaddrinfo(list);
    }
  }
  auto found = m_by_address->find(address);
  if (found == m_by_address->end() || found->second.empty()) return std::nullopt;
  return found->second;
}

}  // namespace ezpz::core
