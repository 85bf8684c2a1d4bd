// Shared by the libclang scanner and the build without it.
#include <set>

#include "harness/launcher_scan.h"

namespace kernelblaster::harness {

void infer_void_elements(SourceScan& scan) {
  std::set<std::string> kinds;
  for (const auto& [name, element] : scan.kernel_pointers) kinds.insert(element);
  for (Launcher& l : scan.launchers)
    for (LauncherParam& p : l.params) {
      if (p.kind != ParamKind::buffer || !p.element.empty()) continue;
      for (const auto& [name, element] : scan.kernel_pointers)
        if (name == p.name) {
          p.element = element;
          p.element_from = "kernel parameter '" + name + "'";
          break;
        }
      if (p.element.empty() && kinds.size() == 1) {
        p.element = *kinds.begin();
        p.element_from = "the kernels' only element type";
      }
    }
}

}  // namespace kernelblaster::harness
