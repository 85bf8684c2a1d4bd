// kernel_symbol(): a kernel's host stub found by its mangled name in the
// program's own symbol table (.symtab, so kernels of internal linkage and
// the host stubs of template instantiations, which nvcc makes static, are
// found too). A kernel-level synthesized harness launches the user's
// kernels through it, with cudaLaunchKernel, as `kernel<<<...>>>` does.
#include <cxxabi.h>
#include <elf.h>
#include <link.h>

#include <cstring>
#include <fstream>
#include <iterator>
#include <map>
#include <mutex>
#include <cstdlib>
#include <string>
#include <vector>

#include "kernelblaster/harness.h"

namespace kernelblaster {
namespace {

int main_program_bias(struct dl_phdr_info* info, std::size_t, void* out) {
  *static_cast<ElfW(Addr)*>(out) = info->dlpi_addr;
  return 1;  // the first object is the program itself
}

std::map<std::string, const void*> read_function_symbols() {
  std::map<std::string, const void*> out;
  std::ifstream f("/proc/self/exe", std::ios::binary);
  std::vector<char> elf((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  if (elf.size() < sizeof(Elf64_Ehdr) || std::memcmp(elf.data(), ELFMAG, SELFMAG) != 0 ||
      elf[EI_CLASS] != ELFCLASS64)
    return out;
  Elf64_Ehdr eh;
  std::memcpy(&eh, elf.data(), sizeof eh);
  if (eh.e_shoff == 0 || eh.e_shentsize != sizeof(Elf64_Shdr) ||
      eh.e_shoff + std::size_t(eh.e_shnum) * sizeof(Elf64_Shdr) > elf.size())
    return out;
  std::vector<Elf64_Shdr> sections(eh.e_shnum);
  std::memcpy(sections.data(), elf.data() + eh.e_shoff, sections.size() * sizeof(Elf64_Shdr));
  ElfW(Addr) bias = 0;
  dl_iterate_phdr(main_program_bias, &bias);
  for (const Elf64_Shdr& s : sections) {
    if (s.sh_type != SHT_SYMTAB || s.sh_link >= sections.size() || s.sh_entsize != sizeof(Elf64_Sym)) continue;
    const Elf64_Shdr& names = sections[s.sh_link];
    if (s.sh_offset + s.sh_size > elf.size() || names.sh_offset + names.sh_size > elf.size()) continue;
    for (std::size_t i = 0; i < s.sh_size / sizeof(Elf64_Sym); ++i) {
      Elf64_Sym sym;
      std::memcpy(&sym, elf.data() + s.sh_offset + i * sizeof sym, sizeof sym);
      if (ELF64_ST_TYPE(sym.st_info) != STT_FUNC || sym.st_value == 0 || sym.st_name >= names.sh_size) continue;
      const char* name = elf.data() + names.sh_offset + sym.st_name;
      std::size_t max = names.sh_size - sym.st_name;
      out.emplace(std::string(name, strnlen(name, max)), reinterpret_cast<const void*>(bias + sym.st_value));
    }
  }
  return out;
}

// The demangled name: the demangler spells every anonymous namespace
// "(anonymous namespace)", whatever name nvcc generated for it.
std::string demangled(const std::string& mangled) {
  int status = 0;
  char* d = abi::__cxa_demangle(mangled.c_str(), nullptr, nullptr, &status);
  if (status != 0 || !d) return "";
  std::string text(d);
  std::free(d);
  return text;
}

}  // namespace

const void* kernel_symbol(const char* mangled_name) {
  static std::once_flag once;
  static std::map<std::string, const void*> symbols;
  std::call_once(once, [] { symbols = read_function_symbols(); });
  const std::string wanted = mangled_name ? mangled_name : "";
  auto it = symbols.find(wanted);
  if (it != symbols.end()) return it->second;
  if (wanted.find("_GLOBAL__N_") == std::string::npos) return nullptr;
  const std::string plain = demangled(wanted);
  if (plain.empty()) return nullptr;
  const void* found = nullptr;
  for (const auto& [name, address] : symbols)
    if (name.find("_GLOBAL__N_") != std::string::npos && name.find("__device_stub") == std::string::npos &&
        demangled(name) == plain) {
      if (found) return nullptr;  // two files' kernels of that name: none is the one
      found = address;
    }
  return found;
}

}  // namespace kernelblaster
