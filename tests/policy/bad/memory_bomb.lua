-- expect: memory_bomb: select\(\): memory limit exceeded \(32 MiB \+ 4 KiB for each of 14 actions\)$
function select(ctx)
  local t = {}
  for i = 1, 1e9 do t[i] = i end
end
