-- lwar Rev 1, for Wireshark 3.x and 4.x.
--
-- Dissects lwar packets on UDP port 32422 (a preference), UDP datagrams on other ports
-- that start with the app id, and the payload of the WebSocket carriage (one binary
-- message per packet, docs/protocol.md "WebSocket carriage") on the server's HTTP port or
-- wherever a binary message starts with the app id.
--
-- Byte layouts and rules: docs/protocol.md. A packet the server would drop is flagged
-- with expert info and the field `lwar.drop`, named as the counter the server bumps
-- (modules/protocol/counters.ts), checked in the server's order, so the first problem
-- found is the one it would count.
--
-- Load it with `wireshark -X lua_script:lwar.lua` or `tshark -X lua_script:lwar.lua`, or
-- copy it into the personal Lua plugins folder (docs/wireshark.md).

local lwar = Proto("lwar", "lwar Rev 1")

local APP_ID = 0xf27087c5
local MAX_PACKET = 512
local HEADER_SIZE = 14
local RELIABLE_HEADER = 5
local UNRELIABLE_HEADER = 1
local NAME_LENGTH = 32
local CHAT_LENGTH = 128
local MAX_PLAYERS = 8
local UPDATE_ENTRY = 15
local NONE = 0xffffffff
local DEFAULT_PORT = 32422
local DEFAULT_WEB_PORT = 8080

-- Who may send a type.
local FROM_CLIENT = 1
local FROM_SERVER = 2
local BOTH = 3

-- One row per message type: payload size (-1: variable), section, senders.
local TYPES = {
  [101] = { name = "Connect", size = 0, reliable = true, senders = FROM_CLIENT },
  [102] = { name = "Disconnect", size = 0, reliable = true, senders = FROM_CLIENT },
  [103] = { name = "Join", size = 4, reliable = true, senders = FROM_SERVER },
  [104] = { name = "Leave", size = 4, reliable = true, senders = FROM_SERVER },
  [105] = { name = "Chat", size = -1, reliable = true, senders = BOTH },
  [106] = { name = "Add", size = 9, reliable = true, senders = FROM_SERVER },
  [107] = { name = "Remove", size = 4, reliable = true, senders = FROM_SERVER },
  [108] = { name = "Selection", size = 6, reliable = true, senders = BOTH },
  [109] = { name = "Name", size = 4 + NAME_LENGTH, reliable = true, senders = BOTH },
  [201] = { name = "Stats", size = 4 * MAX_PLAYERS, reliable = false, senders = FROM_SERVER },
  [202] = { name = "Update", size = -1, reliable = false, senders = FROM_SERVER },
  [203] = { name = "Input", size = 5, reliable = false, senders = FROM_CLIENT },
  [204] = { name = "Reject", size = 1, reliable = false, senders = FROM_SERVER },
}

local TYPE_NAMES = {}
for id, row in pairs(TYPES) do TYPE_NAMES[id] = row.name end

local TEMPLATES = {
  [0] = "sun", [1] = "small planet", [2] = "planet", [3] = "gas giant",
  [4] = "interceptor", [5] = "fighter", [6] = "cruiser",
  [7] = "pulse projectile", [8] = "cannon projectile", [9] = "torpedo projectile",
}
local SHIPS = { [0] = "interceptor", [1] = "fighter", [2] = "cruiser" }
local WEAPONS = { [0] = "pulse", [1] = "cannon", [2] = "torpedo" }
local REJECT_REASONS = { [1] = "server full" }

local f = {
  -- Packet header
  app_id = ProtoField.uint32("lwar.app_id", "App id", base.HEX),
  ack = ProtoField.uint32("lwar.ack", "Ack", base.DEC),
  timestamp = ProtoField.uint32("lwar.timestamp", "Timestamp (ms)", base.DEC),
  rel = ProtoField.uint8("lwar.rel", "Reliable messages", base.DEC),
  unrel = ProtoField.uint8("lwar.unrel", "Unreliable messages", base.DEC),
  sender = ProtoField.string("lwar.sender", "Sender"),
  -- Message headers
  reliable = ProtoField.none("lwar.reliable", "Reliable message"),
  unreliable = ProtoField.none("lwar.unreliable", "Unreliable message"),
  seqno = ProtoField.uint32("lwar.seqno", "Seqno", base.DEC),
  type = ProtoField.uint8("lwar.type", "Type", base.DEC, TYPE_NAMES),
  -- Ids: generation in the high 16 bits, index in the low 16
  player_id = ProtoField.uint32("lwar.player_id", "Player id", base.HEX),
  entity_id = ProtoField.uint32("lwar.entity_id", "Entity id", base.HEX),
  generation = ProtoField.uint16("lwar.id.generation", "Generation", base.DEC),
  index = ProtoField.uint16("lwar.id.index", "Index", base.DEC),
  -- Chat, Name
  chat = ProtoField.string("lwar.chat", "Message"),
  name = ProtoField.string("lwar.name", "Name"),
  -- Add, Selection
  template = ProtoField.uint8("lwar.template", "Template", base.DEC, TEMPLATES),
  ship = ProtoField.uint8("lwar.ship", "Ship type", base.DEC, SHIPS),
  weapon = ProtoField.uint8("lwar.weapon", "Weapon type", base.DEC, WEAPONS),
  -- Stats
  scores = ProtoField.none("lwar.stats.scores", "Scores"),
  pings = ProtoField.none("lwar.stats.pings", "Pings"),
  score = ProtoField.uint16("lwar.stats.score", "Score", base.DEC),
  ping = ProtoField.uint16("lwar.stats.ping", "Ping (ms)", base.DEC),
  -- Update
  num = ProtoField.uint8("lwar.update.num", "Entities", base.DEC),
  entry = ProtoField.none("lwar.update.entry", "Entity"),
  x = ProtoField.int16("lwar.update.x", "x", base.DEC),
  y = ProtoField.int16("lwar.update.y", "y", base.DEC),
  vx = ProtoField.int16("lwar.update.vx", "vx", base.DEC),
  vy = ProtoField.int16("lwar.update.vy", "vy", base.DEC),
  rot = ProtoField.uint16("lwar.update.rot", "Rotation (degrees x 100)", base.DEC),
  health = ProtoField.uint8("lwar.update.health", "Health", base.DEC),
  -- Input
  forward = ProtoField.bool("lwar.input.forward", "Forward"),
  backward = ProtoField.bool("lwar.input.backward", "Backward"),
  left = ProtoField.bool("lwar.input.left", "Left"),
  right = ProtoField.bool("lwar.input.right", "Right"),
  shooting = ProtoField.bool("lwar.input.shooting", "Shooting"),
  -- Reject
  reason = ProtoField.uint8("lwar.reject.reason", "Reason", base.DEC, REJECT_REASONS),
  -- After the last message, and what cannot be read
  padding = ProtoField.bytes("lwar.padding", "Padding"),
  trailing = ProtoField.bytes("lwar.trailing", "Trailing bytes"),
  undecoded = ProtoField.bytes("lwar.undecoded", "Undecoded"),
  drop = ProtoField.string("lwar.drop", "Dropped by the server as"),
}
local field_list = {}
for _, field in pairs(f) do field_list[#field_list + 1] = field end
lwar.fields = field_list

-- The server's validation drops, in the order it checks them (docs/protocol.md "Validation").
local DROPS = {
  { "tooShort", "shorter than the 14-byte header" },
  { "tooLong", "longer than 512 bytes" },
  { "badAppId", "appId is not 0xf27087c5" },
  { "unknownType", "a message type id that does not exist" },
  { "wrongChannel", "a reliable type in the unreliable section or the reverse" },
  { "wrongDirection", "a type the sending side may not send" },
  { "truncated", "a message runs past the end of the packet" },
  { "unterminatedChat", "a Chat with no NUL within 128 bytes or before the end" },
  { "unterminatedName", "a Name with no NUL in its 32 bytes" },
  { "trailingBytes", "a non-zero byte after the last message" },
}
local experts = {}
local expert_list = {}
for _, d in ipairs(DROPS) do
  local e = ProtoExpert.new("lwar.drop." .. d[1], d[1] .. ": " .. d[2], expert.group.MALFORMED, expert.severity.ERROR)
  experts[d[1]] = e
  expert_list[#expert_list + 1] = e
end
lwar.experts = expert_list

lwar.prefs.udp_port = Pref.uint("Server UDP port", DEFAULT_PORT, "The lwar server's UDP port")
lwar.prefs.web_port = Pref.uint("Server HTTP port (WebSocket)", DEFAULT_WEB_PORT,
  "The TCP port whose WebSocket binary messages are lwar packets (the Node host's --http-port)")

-- A WebSocket frame from the client is masked (RFC 6455 5.3), one from the server is not.
local ws_masked = Field.new("websocket.mask")

local function id_text(id)
  if id == NONE then return "none" end
  return string.format("%d:%d", math.floor(id / 65536), id % 65536)
end

-- A generational id, shown as generation:index, with both halves as fields.
local function add_id(tree, field, label, range)
  local id = range:uint()
  local item = tree:add(field, range)
  if id == NONE then
    item:set_text(string.format("%s: none (0x%08x)", label, id))
  else
    item:set_text(string.format("%s: %s (0x%08x)", label, id_text(id), id))
    item:add(f.generation, range:range(0, 2))
    item:add(f.index, range:range(2, 2))
  end
  return id_text(id)
end

-- Who sent the packet: FROM_SERVER, FROM_CLIENT, or nil when it cannot be told.
local function sender_of(pinfo)
  local masked = { ws_masked() }
  if #masked > 0 then
    return masked[#masked].value and FROM_CLIENT or FROM_SERVER
  end
  local port = lwar.prefs.udp_port
  if pinfo.src_port == port then return FROM_SERVER end
  if pinfo.dst_port == port then return FROM_CLIENT end
  return nil
end

--[[ Payload size of a message of a known type at `p`, as the server measures it, or nil
and the drop it counts.
  Chat      4-byte id, then text up to a NUL within 128 bytes and within the packet
  Name      4-byte id, then a 32-byte field that must hold a NUL
  Update    uint8 num, then num entries of 15 bytes
  the rest  the fixed size of TYPES
]]
local function payload_size(tvb, p, type, length)
  local row = TYPES[type]
  if row.size >= 0 then
    if p + row.size > length then return nil, "truncated" end
    if type == 109 then
      for i = p + 4, p + 4 + NAME_LENGTH - 1 do
        if tvb(i, 1):uint() == 0 then return row.size end
      end
      return nil, "unterminatedName"
    end
    return row.size
  end
  if type == 202 then
    if p + 1 > length then return nil, "truncated" end
    local size = 1 + tvb(p, 1):uint() * UPDATE_ENTRY
    if p + size > length then return nil, "truncated" end
    return size
  end
  if p + 4 > length then return nil, "truncated" end
  local limit = math.min(length, p + 4 + CHAT_LENGTH)
  for i = p + 4, limit - 1 do
    if tvb(i, 1):uint() == 0 then return i + 1 - p end
  end
  return nil, "unterminatedChat"
end

-- Text of a NUL-terminated ASCII field of `size` bytes at `o` (up to the NUL).
local function text_at(tvb, o, size)
  local n = 0
  while n < size and tvb(o + n, 1):uint() ~= 0 do n = n + 1 end
  if n == 0 then return "", n end
  return tvb(o, n):string(), n
end

--[[ Payloads. Each gets the message's subtree, the payload offset and its size (already
checked to lie within the packet), and returns a short summary for the Info column.

Join, Leave: 4 bytes            Remove: 4 bytes
  0  uint32(Id)  playerId         0  uint32(Id)  entityId
]]
local function dissect_player(tvb, t, p)
  return add_id(t, f.player_id, "Player id", tvb(p, 4))
end

local function dissect_remove(tvb, t, p)
  return add_id(t, f.entity_id, "Entity id", tvb(p, 4))
end

--[[ Chat: 5..132 bytes
  0  uint32(Id)  playerId
  4  uint8[]     message, ASCII, NUL-terminated, at most 128 bytes with the NUL
]]
local function dissect_chat(tvb, t, p, size)
  local who = add_id(t, f.player_id, "Player id", tvb(p, 4))
  local text = text_at(tvb, p + 4, size - 4)
  t:add(f.chat, tvb(p + 4, size - 4), text)
  return who .. ' "' .. text .. '"'
end

--[[ Add: 9 bytes
  0  uint32(Id)  entityId
  4  uint32(Id)  playerId, 0xFFFFFFFF: no owner
  8  uint8       typeId
]]
local function dissect_add(tvb, t, p)
  local entity = add_id(t, f.entity_id, "Entity id", tvb(p, 4))
  add_id(t, f.player_id, "Owner", tvb(p + 4, 4))
  t:add(f.template, tvb(p + 8, 1))
  return entity .. " " .. (TEMPLATES[tvb(p + 8, 1):uint()] or "?")
end

--[[ Selection: 6 bytes
  0  uint32(Id)  playerId
  4  uint8       shipType
  5  uint8       weaponType
]]
local function dissect_selection(tvb, t, p)
  local who = add_id(t, f.player_id, "Player id", tvb(p, 4))
  t:add(f.ship, tvb(p + 4, 1))
  t:add(f.weapon, tvb(p + 5, 1))
  return string.format("%s ship %d weapon %d", who, tvb(p + 4, 1):uint(), tvb(p + 5, 1):uint())
end

--[[ Name: 36 bytes
  0  uint32(Id)  playerId
  4  uint8[32]   name, ASCII, NUL-terminated, NUL-padded
]]
local function dissect_name(tvb, t, p)
  local who = add_id(t, f.player_id, "Player id", tvb(p, 4))
  local text = text_at(tvb, p + 4, NAME_LENGTH)
  t:add(f.name, tvb(p + 4, NAME_LENGTH), text)
  return who .. ' "' .. text .. '"'
end

--[[ Stats: 32 bytes, indexed by player slot, 0 for empty slots
   0  uint16[8]  scores
  16  uint16[8]  pings, smoothed round-trip time in ms
]]
local function dissect_stats(tvb, t, p)
  local scores = t:add(f.scores, tvb(p, 2 * MAX_PLAYERS))
  local pings = t:add(f.pings, tvb(p + 2 * MAX_PLAYERS, 2 * MAX_PLAYERS))
  for slot = 0, MAX_PLAYERS - 1 do
    local s = tvb(p + 2 * slot, 2)
    local g = tvb(p + 2 * MAX_PLAYERS + 2 * slot, 2)
    scores:add(f.score, s):set_text(string.format("Slot %d score: %d", slot, s:uint()))
    pings:add(f.ping, g):set_text(string.format("Slot %d ping: %d ms", slot, g:uint()))
  end
  return ""
end

--[[ Update: 1 + 15 x num bytes
  0  uint8  num
  then num entries of 15 bytes:
   0  uint32(Id)  entityId
   4  int16       x        world units
   6  int16       y
   8  int16       vx       world units per second
  10  int16       vy
  12  uint16      rot      degrees x 100, 0..35999
  14  uint8       health   0..100
]]
local function dissect_update(tvb, t, p)
  local num = tvb(p, 1):uint()
  t:add(f.num, tvb(p, 1))
  for i = 0, num - 1 do
    local e = p + 1 + UPDATE_ENTRY * i
    local et = t:add(f.entry, tvb(e, UPDATE_ENTRY))
    local id = add_id(et, f.entity_id, "Entity id", tvb(e, 4))
    et:add(f.x, tvb(e + 4, 2))
    et:add(f.y, tvb(e + 6, 2))
    et:add(f.vx, tvb(e + 8, 2))
    et:add(f.vy, tvb(e + 10, 2))
    local rot = tvb(e + 12, 2):uint()
    et:add(f.rot, tvb(e + 12, 2)):append_text(string.format(" (%.2f degrees)", rot / 100))
    et:add(f.health, tvb(e + 14, 1))
    et:set_text(string.format("Entity %d: %s at (%d, %d) moving (%d, %d), heading %.2f, health %d",
      i, id, tvb(e + 4, 2):int(), tvb(e + 6, 2):int(), tvb(e + 8, 2):int(), tvb(e + 10, 2):int(),
      rot / 100, tvb(e + 14, 1):uint()))
  end
  return tostring(num)
end

--[[ Input: 5 bytes, each a boolean, non-zero = on
  0 forward, 1 backward, 2 left, 3 right, 4 shooting
]]
local INPUT_FIELDS = { f.forward, f.backward, f.left, f.right, f.shooting }
local INPUT_LETTERS = { "F", "B", "L", "R", "S" }
local function dissect_input(tvb, t, p)
  local keys = ""
  for i, field in ipairs(INPUT_FIELDS) do
    t:add(field, tvb(p + i - 1, 1))
    keys = keys .. (tvb(p + i - 1, 1):uint() ~= 0 and INPUT_LETTERS[i] or "-")
  end
  return keys
end

--[[ Reject (lwar-xs extension, unreliable, server to client): 1 byte
  0  uint8  reason  1 = server full
]]
local function dissect_reject(tvb, t, p)
  t:add(f.reason, tvb(p, 1))
  return REJECT_REASONS[tvb(p, 1):uint()] or "?"
end

local PAYLOADS = {
  [103] = dissect_player, [104] = dissect_player, [105] = dissect_chat, [106] = dissect_add,
  [107] = dissect_remove, [108] = dissect_selection, [109] = dissect_name, [201] = dissect_stats,
  [202] = dissect_update, [203] = dissect_input, [204] = dissect_reject,
}

local SENDER_NAMES = { [FROM_CLIENT] = "client", [FROM_SERVER] = "server" }

--[[ Packet: the header, then rel reliable messages, then unrel unreliable ones, then
nothing or zero bytes.
Header, 14 bytes
   0  uint32  appId      0xf27087c5
   4  uint32  ack        seqno of the last reliable message processed, 0xFFFFFFFF before any
   8  uint32  timestamp  sender's monotonic ms (mod 2^32)
  12  uint8   rel        number of reliable messages
  13  uint8   unrel      number of unreliable messages
Reliable message:   0 uint32 seqno, 4 uint8 type, 5 payload
Unreliable message: 0 uint8 type, 1 payload
]]
function lwar.dissector(tvb, pinfo, tree)
  local length = tvb:len()
  pinfo.cols.protocol = "lwar"
  local root = tree:add(lwar, tvb())
  local from = sender_of(pinfo)
  root:add(f.sender, SENDER_NAMES[from] or "unknown"):set_generated()

  local drop = nil
  local function flag(item, name, detail)
    item:add_proto_expert_info(experts[name], name .. ": " .. detail)
    if drop == nil then drop = name end
  end
  local function finish(summary)
    local direction = from == FROM_SERVER and "Server → client" or from == FROM_CLIENT and "Client → server" or "lwar"
    if drop ~= nil then
      root:add(f.drop, drop):set_generated()
      root:append_text(" [dropped: " .. drop .. "]")
      summary = summary .. " [" .. drop .. "]"
    end
    pinfo.cols.info:set(direction .. " " .. summary)
    return length
  end

  if length < HEADER_SIZE then
    if length > 0 then root:add(f.undecoded, tvb()) end
    flag(root, "tooShort", string.format("%d bytes, the header alone is %d", length, HEADER_SIZE))
    return finish(string.format("%d bytes", length))
  end
  if length > MAX_PACKET then
    flag(root, "tooLong", string.format("%d bytes, at most %d", length, MAX_PACKET))
  end
  local app = root:add(f.app_id, tvb(0, 4))
  if tvb(0, 4):uint() ~= APP_ID then
    flag(app, "badAppId", string.format("0x%08x, not 0x%08x", tvb(0, 4):uint(), APP_ID))
    root:add(f.undecoded, tvb(4))
    return finish(string.format("%d bytes", length))
  end
  local ack = tvb(4, 4):uint()
  local ack_item = root:add(f.ack, tvb(4, 4))
  if ack == NONE then ack_item:append_text(" (none yet)") end
  root:add(f.timestamp, tvb(8, 4))
  root:add(f.rel, tvb(12, 1))
  root:add(f.unrel, tvb(13, 1))
  local rel = tvb(12, 1):uint()
  local total = rel + tvb(13, 1):uint()
  local summary = "Ack=" .. (ack == NONE and "none" or tostring(ack)) .. " Ts=" .. tvb(8, 4):uint()
  local rel_info, unrel_info = {}, {}

  local function note(reliable, text)
    local list = reliable and rel_info or unrel_info
    list[#list + 1] = text
  end

  local o = HEADER_SIZE
  local complete = true
  for m = 0, total - 1 do
    local reliable = m < rel
    local p = o + (reliable and RELIABLE_HEADER or UNRELIABLE_HEADER)
    if p > length then
      local rest = length > o and tvb(o) or tvb(length - 1, 1)
      flag(root:add(f.undecoded, rest), "truncated",
        string.format("message %d of %d: its header runs past the end of the packet", m + 1, total))
      complete = false
      break
    end
    local t = root:add(reliable and f.reliable or f.unreliable, tvb(o, p - o))
    local seqno = nil
    if reliable then
      seqno = tvb(o, 4):uint()
      t:add(f.seqno, tvb(o, 4))
    end
    local type = tvb(p - 1, 1):uint()
    local type_item = t:add(f.type, tvb(p - 1, 1))
    local row = TYPES[type]
    local label = (reliable and "Reliable" or "Unreliable") .. " message " .. (reliable and m or m - rel) .. ": " .. (row and row.name or ("type " .. type))
    if reliable then label = label .. ", seqno " .. seqno end
    t:set_text(label)
    if row == nil then
      note(reliable, (reliable and seqno .. " " or "") .. "type " .. type)
      flag(type_item, "unknownType", string.format("type id %d", type))
      if p < length then root:add(f.undecoded, tvb(p)) end
      complete = false
      break
    end
    if row.reliable ~= reliable then
      flag(type_item, "wrongChannel", string.format("%s is %s, found among the %s messages", row.name,
        row.reliable and "reliable" or "unreliable", reliable and "reliable" or "unreliable"))
    end
    if from ~= nil and row.senders ~= BOTH and row.senders ~= from then
      flag(type_item, "wrongDirection", string.format("%s sent by a %s", row.name, SENDER_NAMES[from]))
    end
    local size, bad = payload_size(tvb, p, type, length)
    if size == nil then
      local detail = bad == "truncated"
        and string.format("%s payload needs more than the %d bytes left", row.name, length - p)
        or type == 105 and "Chat text has no NUL within 128 bytes or before the end of the packet"
        or "Name has no NUL in its 32-byte field"
      if p < length then t:add(f.undecoded, tvb(p)) end
      t:set_len(length - o)
      note(reliable, (reliable and seqno .. " " or "") .. row.name)
      flag(t, bad, detail)
      complete = false
      break
    end
    t:set_len(p - o + size)
    local what = PAYLOADS[type] and PAYLOADS[type](tvb, t, p, size) or ""
    if what ~= "" then t:append_text(" (" .. what .. ")") end
    if reliable then
      note(true, seqno .. " " .. row.name)
    elseif type == 202 then
      note(false, "Update(" .. what .. ")")
    else
      note(false, row.name)
    end
    o = p + size
  end

  if complete and o < length then
    local nonzero = nil
    for i = o, length - 1 do
      if tvb(i, 1):uint() ~= 0 then nonzero = i break end
    end
    if nonzero == nil then
      root:add(f.padding, tvb(o))
    else
      flag(root:add(f.trailing, tvb(o)), "trailingBytes",
        string.format("0x%02x at offset %d, after the last message", tvb(nonzero, 1):uint(), nonzero))
    end
  end

  if #rel_info > 0 then summary = summary .. " Rel: " .. table.concat(rel_info, ", ") end
  if #unrel_info > 0 then summary = summary .. " Unrel: " .. table.concat(unrel_info, ", ") end
  return finish(summary)
end

-- Anything that starts with the header and the app id.
local function heuristic(tvb, pinfo, tree)
  if tvb:len() < HEADER_SIZE or tvb(0, 4):uint() ~= APP_ID then return false end
  lwar.dissector(tvb, pinfo, tree)
  return true
end

local udp_table = DissectorTable.get("udp.port")
local ws_table = DissectorTable.get("ws.port")
local registered_udp, registered_web = nil, nil

local function register_ports()
  if registered_udp ~= nil then udp_table:remove(registered_udp, lwar) end
  if registered_web ~= nil and ws_table ~= nil then ws_table:remove(registered_web, lwar) end
  registered_udp = lwar.prefs.udp_port
  udp_table:add(registered_udp, lwar)
  if ws_table ~= nil then
    registered_web = lwar.prefs.web_port
    ws_table:add(registered_web, lwar)
  end
end

function lwar.prefs_changed()
  register_ports()
end

register_ports()
lwar:register_heuristic("udp", heuristic)
lwar:register_heuristic("ws", heuristic)
