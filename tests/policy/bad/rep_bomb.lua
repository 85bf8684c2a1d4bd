-- expect: rep_bomb: select\(\): memory limit exceeded \(32 MiB \+ 4 KiB for each of 14 actions\)$
function select(ctx) return string.rep("x", 2^40) end
