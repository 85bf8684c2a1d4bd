-- expect: rep_bomb: select\(\): memory limit exceeded \(32 MiB\)$
function select(ctx) return string.rep("x", 2^40) end
