--[[ no_fast_math: an example user restriction, "never fast math".

What it does
  Removes every action that would trade accuracy for speed in floating
  point: technique fast_math, a flag that turns fast math or one of its parts
  on (-use_fast_math, --ftz=true, --prec-div=false, --prec-sqrt=false,
  --fmad=true is left alone: it is nvcc's default), or a tunable named like
  *FAST_MATH* set to anything but 0. The remaining actions are ordered by the
  paper's weighted random rule (as weighted_random.lua). stop() ends the
  search when no allowed action is left (the tool asks stop() before
  select()), so the default policy never gets a chance to pick fast math.

When to use it
  Kernels whose results must match the reference bit for bit or whose
  tolerance is tight; or as a template for any "never X" rule: change
  forbidden() and keep the rest.

Parameters (edit the constants below)
  FLOOR, EXPLORE  as in weighted_random.lua
]]

local FLOOR = 0.02
local EXPLORE = 0.1

local FORBIDDEN_FLAGS = {
  ["-use_fast_math"] = true, ["--use_fast_math"] = true,
  ["-ftz=true"] = true, ["--ftz=true"] = true,
  ["-prec-div=false"] = true, ["--prec-div=false"] = true,
  ["-prec-sqrt=false"] = true, ["--prec-sqrt=false"] = true,
}

local function forbidden(action)
  if action.technique == "fast_math" then return true end
  for name, value in pairs(action.settings) do
    if name == "flags" then
      for flag in string.gmatch(value, "%S+") do
        if FORBIDDEN_FLAGS[flag] then return true end
      end
    elseif string.find(string.upper(name), "FAST_MATH", 1, true) and value ~= "0" then
      return true
    end
  end
  return false
end

local function weight(action)
  local kb = action.kb
  local w = (kb.predicted_speedup - 1) + EXPLORE * (1 - math.min(1, math.max(0, kb.confidence)))
  if w ~= w or w < FLOOR then return FLOOR end
  return w
end

local function allowed(ctx)
  local out = {}
  for _, action in ipairs(ctx.actions) do
    if not forbidden(action) then out[#out + 1] = action end
  end
  return out
end

function select(ctx)
  local keyed = {}
  for i, action in ipairs(allowed(ctx)) do
    keyed[i] = { key = math.log(1 - math.random()) / weight(action), id = action.id }
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
  return #allowed(ctx) == 0
end
