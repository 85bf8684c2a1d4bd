--[[ weighted_random: the KernelBlaster paper's selection rule.

What it does
  Orders every candidate action by weighted random sampling without
  replacement: the first is drawn with probability proportional to its
  weight, then the next among the rest, and so on. An action's weight is

    max(FLOOR, (kb.predicted_speedup - 1) + EXPLORE * (1 - kb.confidence))

  so the knowledge base's predicted gain draws the search, actions the KB
  knows little about get an exploration bonus, and even a predicted loss keeps
  a small chance. accept() takes a verified result that beats the best so
  far; stop() ends the search when nothing is left (the budget does the rest).
  The built-in default policy is a variant: it counts the gain against the
  run's best so far, keeps the exploration term constant, and multiplies the
  weight by (tries - failed + 1) / (tries + 1) (policies/README.md).

When to use it
  The general-purpose choice: it exploits what the KB knows and keeps
  exploring, so one wrong KB estimate never hides the best configuration.

Parameters (edit the constants below)
  FLOOR    smallest weight of any action (default 0.02)
  EXPLORE  bonus for an action the KB has no confidence in (default 0.1)

Determinism: the tool seeds math.random from (ctx.seed, #ctx.history) before
every call, so a seed and a history give the same order on every run.
]]

local FLOOR = 0.02
local EXPLORE = 0.1

local function weight(action)
  local kb = action.kb
  local confidence = math.min(1, math.max(0, kb.confidence))
  local w = (kb.predicted_speedup - 1) + EXPLORE * (1 - confidence)
  if w ~= w or w < FLOOR then return FLOOR end  -- w ~= w: NaN
  return w
end

function select(ctx)
  local keyed = {}
  for i, action in ipairs(ctx.actions) do
    local u = 1 - math.random()  -- in (0, 1]
    keyed[i] = { key = math.log(u) / weight(action), id = action.id }
  end
  table.sort(keyed, function(a, b)
    if a.key ~= b.key then return a.key > b.key end
    return a.id < b.id
  end)
  local ids = {}
  for i, k in ipairs(keyed) do ids[i] = k.id end
  return ids
end

function accept(ctx, result)
  return result.status == "ok" and result.speedup > ctx.best_speedup
end

function stop(ctx)
  if #ctx.actions == 0 then return true end
  return nil
end
