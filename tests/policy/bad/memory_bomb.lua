-- expect: memory_bomb: select\(\): memory limit exceeded \(32 MiB\)$
function select(ctx)
  local t = {}
  for i = 1, 1e9 do t[i] = i end
end
