-- expect: slow_in_c: select\(\): (deadline exceeded \(1\.0 s \+ 50\.0 us for each of 14 actions\)|instruction limit exceeded)$
-- Work done inside C functions (the hook cannot see it) is charged too.
function select(ctx)
  local s = string.rep("ab,", 100000)
  while true do local _ = string.find(s, "zz", 1, true) end
end
