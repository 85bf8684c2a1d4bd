#include "common/sha256.h"

#include <openssl/evp.h>

#include <stdexcept>

namespace kernelblaster {

namespace {
EVP_MD_CTX* ctx_of(void* p) { return static_cast<EVP_MD_CTX*>(p); }
}  // namespace

Sha256::Sha256() : m_ctx(EVP_MD_CTX_new()) {
  if (!m_ctx || EVP_DigestInit_ex(ctx_of(m_ctx), EVP_sha256(), nullptr) != 1)
    throw std::runtime_error("libcrypto: cannot start a SHA-256 digest");
}

Sha256::~Sha256() { EVP_MD_CTX_free(ctx_of(m_ctx)); }

void Sha256::update(std::string_view data) {
  if (EVP_DigestUpdate(ctx_of(m_ctx), data.data(), data.size()) != 1)
    throw std::runtime_error("libcrypto: SHA-256 update failed");
}

void Sha256::field(std::string_view data) {
  update(std::to_string(data.size()));
  update(":");
  update(data);
}

std::string Sha256::hex() {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  if (EVP_DigestFinal_ex(ctx_of(m_ctx), digest, &len) != 1)
    throw std::runtime_error("libcrypto: SHA-256 final failed");
  static const char* kHex = "0123456789abcdef";
  std::string out;
  for (unsigned int i = 0; i < len; ++i) {
    out += kHex[digest[i] >> 4];
    out += kHex[digest[i] & 15];
  }
  return out;
}

std::string sha256_hex(std::string_view data) {
  Sha256 h;
  h.update(data);
  return h.hex();
}

}  // namespace kernelblaster
