--[[ surrogate: a small additive model of this run's measurements, for large
parameter spaces.

What it does
  Describes every action by features: one per setting ("BLOCK_SIZE=256"),
  one per compiler flag ("flag:-use_fast_math"), or its technique when it
  has no settings. From this
  run's history it learns each feature's effect: the mean log-speedup of the
  measured actions that had it, shrunk towards the overall mean (a failed
  candidate counts as speedup FAILED). An untried action's score is

    overall mean + sum of its features' effects                (the model)
    + KB_WEIGHT * kb.confidence * log(kb.predicted_speedup)    (the prior)
    + EXPLORE * sum over its features of 1 / sqrt(1 + times measured)

  and select() orders actions by score, best first. With probability EPSILON
  a random action goes first, so a wrong model cannot trap the search.

When to use it
  Spaces with many tunables (hundreds of configurations or more): a few
  measurements tell which value of each tunable helps, and the search then
  concentrates on the combinations of good values instead of sampling
  blindly. On small spaces use exhaustive.lua.

Parameters (edit the constants below)
  FAILED     speedup a failed candidate counts as (default 0.5)
  SHRINK     pseudo-measurements pulling an effect to the mean (default 1)
  KB_WEIGHT  weight of the knowledge base's prediction (default 1)
  EXPLORE    bonus for features measured rarely (default 0.05)
  EPSILON    chance of a random action first (default 0.1)
  STALL      stop after this many measurements in a row without a new
             best (default 0: never stop early)
]]

local FAILED = 0.5
local SHRINK = 1
local KB_WEIGHT = 1
local EXPLORE = 0.05
local EPSILON = 0.1
local STALL = 0

-- Settings of a history entry: the tool passes them; older recordings may
-- only have an id such as "BLOCK_SIZE=256,ITEMS=4".
local function settings_of(entry)
  if entry.settings and next(entry.settings) ~= nil then return entry.settings end
  local settings = {}
  for name, value in string.gmatch(entry.action_id or "", "([%w_]+)=([^,]*)") do settings[name] = value end
  return settings
end

-- Features in a fixed order (sorted), so sums are the same on every run.
local function features(settings, technique)
  local names = {}
  for name in pairs(settings) do names[#names + 1] = name end
  table.sort(names)
  local out = {}
  for _, name in ipairs(names) do
    local value = settings[name]
    if name == "flags" then
      for flag in string.gmatch(value, "%S+") do out[#out + 1] = "flag:" .. flag end
    else
      out[#out + 1] = name .. "=" .. value
    end
  end
  -- The technique only tells actions apart when they have no settings (for
  -- the tuner it follows from the settings and would count them twice).
  if #out == 0 and technique and technique ~= "" then out[1] = "technique:" .. technique end
  return out
end

local function log_speedup(entry)
  if entry.status == "ok" and entry.speedup > 0 then return math.log(entry.speedup) end
  return math.log(FAILED)
end

function select(ctx)
  local sum, count, total = {}, {}, 0
  for _, entry in ipairs(ctx.history) do
    local y = log_speedup(entry)
    total = total + y
    for _, f in ipairs(features(settings_of(entry), entry.technique)) do
      sum[f] = (sum[f] or 0) + y
      count[f] = (count[f] or 0) + 1
    end
  end
  local mean = #ctx.history > 0 and total / #ctx.history or 0

  local scored = {}
  for i, action in ipairs(ctx.actions) do
    local score = mean
    for _, f in ipairs(features(action.settings, action.technique)) do
      local n = count[f] or 0
      local effect = ((sum[f] or 0) + SHRINK * mean) / (n + SHRINK) - mean
      score = score + effect + EXPLORE / math.sqrt(1 + n)
    end
    local kb = action.kb
    if kb.predicted_speedup > 0 then
      score = score + KB_WEIGHT * math.min(1, math.max(0, kb.confidence)) * math.log(kb.predicted_speedup)
    end
    -- Equal scores (at the start, all of them) are ordered at random: a
    -- random first design tells the tunables' effects apart better than
    -- the id order would.
    scored[i] = { score = score, tie = math.random(), id = action.id }
  end
  table.sort(scored, function(a, b)
    if a.score ~= b.score then return a.score > b.score end
    if a.tie ~= b.tie then return a.tie < b.tie end
    return a.id < b.id
  end)
  local ids = {}
  for i, s in ipairs(scored) do ids[i] = s.id end
  if #ids > 1 and math.random() < EPSILON then
    local pick = math.random(#ids)
    table.insert(ids, 1, table.remove(ids, pick))
  end
  return ids
end

function accept(ctx, result)
  return result.status == "ok" and result.speedup > ctx.best_speedup
end

function stop(ctx)
  if #ctx.actions == 0 then return true end
  if STALL <= 0 or #ctx.history < STALL then return nil end
  for i = #ctx.history - STALL + 1, #ctx.history do
    if ctx.history[i].accepted then return nil end
  end
  return true
end
