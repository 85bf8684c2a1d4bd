// SHA-256 through OpenSSL's libcrypto: content keys (results cache, driver builds), the LLM response cache. Its own library (kb_hash), so the harness runtime never links libcrypto.
#pragma once

#include <string>
#include <string_view>

namespace kernelblaster {

// Lower-case hex digest of `data`. Throws std::runtime_error only if
// libcrypto itself fails.
std::string sha256_hex(std::string_view data);

// Incremental form, for keys built from many parts.
class Sha256 {
 public:
  Sha256();
  ~Sha256();
  Sha256(const Sha256&) = delete;
  Sha256& operator=(const Sha256&) = delete;
  void update(std::string_view data);
  // A length-prefixed field, so ("ab","c") and ("a","bc") hash differently.
  void field(std::string_view data);
  std::string hex();  // finishes; the object is spent afterwards

 private:
  void* m_ctx;  // EVP_MD_CTX*
};

}  // namespace kernelblaster
