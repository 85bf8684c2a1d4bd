local WANT = {"VEC_BYTES=16", "VEC_BYTES=16,-use_fast_math", "BLOCK_SIZE=128,VEC_BYTES=16", "BLOCK_SIZE=128,VEC_BYTES=16,-use_fast_math", "-use_fast_math", "BLOCK_SIZE=128", }
function select(ctx)
  local have, out = {}, {}
  for _, a in ipairs(ctx.actions) do have[a.id] = true end
  for _, id in ipairs(WANT) do if have[id] then out[#out + 1] = id end end
  if #out == 0 then return ctx.actions[1] and ctx.actions[1].id or nil end
  return out
end
function stop(ctx)
  local have = {}
  for _, a in ipairs(ctx.actions) do have[a.id] = true end
  for _, id in ipairs(WANT) do if have[id] then return false end end
  return true
end
