/**
 * examples/chat-relay: the relay and its clients (relay.ts, the logic main.ts runs on
 * Moddable) over the seeded lossy in-memory link, and the Moddable build of the example
 * where the SDK is installed.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { ChatClient, ChatRelay } from "../../examples/chat-relay/relay";
import { Counter, FROM_CLIENT } from "../../modules/protocol/index";
import { Network, type LinkOptions, type MemHost } from "../../harness/link";
import { buildEnv, findFile, missingTools, runMcconfig } from "../../tools/board/kit";
import { checkImports, readBuild } from "../../tools/board/manifest";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const RELAY_PORT = 40001;

interface Line {
  from: number;
  text: string;
}

interface Room {
  net: Network;
  relay: ChatRelay;
  relayHost: MemHost;
  clients: ChatClient[];
  hosts: MemHost[];
  /** Lines each client received, in order. */
  heard: Line[][];
}

function room(link: LinkOptions, clients: number): Room {
  const net = new Network(link);
  const relayHost = net.host("mem:relay", RELAY_PORT);
  relayHost.receives = FROM_CLIENT;
  const relay = new ChatRelay(relayHost, { queueBytes: 8192 });
  relayHost.core = relay;
  const r: Room = { net, relay, relayHost, clients: [], hosts: [], heard: [] };
  for (let k = 0; k < clients; k++) {
    const h = net.host(`mem:client${k}`, 41000 + k);
    const c = new ChatClient(h, "mem:relay", RELAY_PORT, { queueBytes: 4096 });
    const heard: Line[] = [];
    c.onLine = (from, text, offset, length) => {
      heard.push({ from, text: String.fromCharCode(...text.subarray(offset, offset + length)) });
    };
    h.core = c;
    r.clients.push(c);
    r.hosts.push(h);
    r.heard.push(heard);
  }
  return r;
}

function until(r: Room, done: () => boolean, limitMs: number): boolean {
  const end = r.net.now + limitMs;
  while (r.net.now < end) {
    if (done()) return true;
    r.net.run(10, 5);
  }
  return done();
}

function connectAll(r: Room): void {
  for (const c of r.clients) c.connect();
  assert.ok(until(r, () => r.clients.every((c) => c.selfId >= 0), 20_000), "every client learnt its id");
  assert.equal(r.relay.clientCount(), r.clients.length);
  assert.equal(new Set(r.clients.map((c) => c.selfId)).size, r.clients.length, "ids are distinct");
}

/**
 * Each client says `perClient` lines, a few at a time at random moments (bursts included),
 * then everything is run until every queue is empty. Returns the lines each one said.
 */
function chat(r: Room, perClient: number, seed: number): string[][] {
  const said: string[][] = r.clients.map(() => []);
  let x = seed >>> 0 || 1;
  const rand = (n: number): number => {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    return x % n;
  };
  while (said.some((s) => s.length < perClient)) {
    for (let k = 0; k < r.clients.length; k++) {
      if (said[k].length >= perClient || rand(4) !== 0) continue;
      for (let burst = 1 + rand(3); burst > 0 && said[k].length < perClient; burst--) {
        const text = `client ${k} line ${said[k].length}${"!".repeat(rand(90))}`;
        assert.ok(r.clients[k].say(text), "the queue has room");
        said[k].push(text);
      }
    }
    r.net.run(20, 5);
  }
  const total = perClient * r.clients.length;
  assert.ok(
    until(r, () => r.heard.every((h) => h.length >= total) && r.relay.pending() === 0 && r.clients.every((c) => c.endpoint.count === 0), 120_000),
    `every line delivered and acknowledged: heard ${r.heard.map((h) => h.length).join(", ")} of ${total}`,
  );
  return said;
}

function assertExactlyOnceInOrder(r: Room, said: string[][]): void {
  const total = said.reduce((n, s) => n + s.length, 0);
  assert.equal(r.relay.linesRelayed, total, "the relay took every line once");
  const byId = new Map(r.clients.map((c, k) => [c.selfId, k]));
  for (let k = 0; k < r.clients.length; k++) {
    const heard = r.heard[k];
    assert.equal(heard.length, total, `client ${k} heard every line exactly once`);
    // All clients hear the relay's one order.
    assert.deepEqual(heard, r.heard[0], `client ${k} heard the lines in the same order as client 0`);
    // And each sender's lines in the order it said them.
    for (let j = 0; j < r.clients.length; j++) {
      const fromJ = heard.filter((l) => byId.get(l.from) === j).map((l) => l.text);
      assert.deepEqual(fromJ, said[j], `client ${k} heard client ${j}'s lines in order`);
    }
  }
}

const LOSSY: LinkOptions = { seed: 11, loss: 0.2, duplicate: 0.1, reorder: 0.2, delayMs: 2, jitterMs: 8, reorderMs: 25 };

describe("examples/chat-relay over a lossy link", function () {
  this.timeout(120_000);

  it("three clients, 20% loss, 10% duplicates, 20% reordered, jitter: every line reaches every client exactly once, in order", () => {
    const r = room(LOSSY, 3);
    connectAll(r);
    const said = chat(r, 60, 3);
    assertExactlyOnceInOrder(r, said);
    const n = r.net;
    assert.ok(n.lost > n.sent * 0.15 && n.duplicated > n.sent * 0.05 && n.reordered > n.sent * 0.1, `the link was hostile: sent ${n.sent} lost ${n.lost} dup ${n.duplicated} reordered ${n.reordered}`);
    assert.ok(r.relay.counters[Counter.DuplicateReliable] + r.relay.counters[Counter.OutOfOrderReliable] > 0, "the relay saw copies and gaps, and dropped them");
    assert.ok(r.clients.every((c) => c.endpoint.resent > 0), "every client had to resend");
  });

  it("two clients, every other packet dropped: every line arrives exactly once, in order", () => {
    const r = room({ seed: 5, loss: 0.5, delayMs: 1 }, 2);
    connectAll(r);
    assertExactlyOnceInOrder(r, chat(r, 40, 9));
  });

  for (const seed of [21, 22, 23]) {
    it(`three clients under garbage datagrams (seed ${seed}), some naming the clients' addresses: the relay drops and counts them, the chat is unharmed`, () => {
      const r = room({ ...LOSSY, seed }, 3);
      r.net.garbageTo(r.relayHost, 200, r.hosts, 0.5);
      connectAll(r);
      const said = chat(r, 30, seed);
      assertExactlyOnceInOrder(r, said);
      assert.ok(r.net.garbage > 100, `garbage was sent: ${r.net.garbage}`);
      assert.equal(r.relayHost.slipped, 0);
      const dropped = [Counter.TooShort, Counter.TooLong, Counter.BadAppId, Counter.UnknownType, Counter.WrongChannel, Counter.WrongDirection, Counter.Truncated, Counter.UnterminatedChat, Counter.UnterminatedName, Counter.TrailingBytes];
      for (const c of dropped) assert.equal(r.relay.counters[c], r.relayHost.injected[c], `counter ${c}: the relay dropped exactly the invalid datagrams injected`);
    });
  }

  it("a client that disconnects is forgotten, and the others hear on", () => {
    const r = room({ seed: 2, loss: 0.1, delayMs: 2, jitterMs: 4 }, 3);
    connectAll(r);
    assert.ok(r.clients[2].disconnect());
    assert.ok(until(r, () => r.relay.clientCount() === 2, 10_000), "the relay let it go");
    assert.ok(r.clients[0].say("still here"));
    assert.ok(until(r, () => r.heard[1].some((l) => l.text === "still here"), 10_000));
    assert.equal(r.heard[2].length, 0);
  });

  it("a client that falls silent is dropped after timeoutMs", () => {
    const r = room({ seed: 3, delayMs: 1 }, 2);
    connectAll(r);
    r.hosts[1].muted = true;
    r.net.run(9_000, 10);
    assert.equal(r.relay.clientCount(), 2, "not before the timeout");
    r.net.run(2_000, 10);
    assert.equal(r.relay.clientCount(), 1);
    assert.equal(r.relay.counters[Counter.Timeouts], 1);
  });

});

describe("examples/chat-relay's manifest", () => {
  const MAIN = "examples/chat-relay/main";
  const SDK = process.env.MODDABLE ?? "/nonexistent-moddable";
  /** The build as mcconfig would read it (without the SDK, its manifests are not read); our modules only. */
  function ours(): { build: ReturnType<typeof readBuild>; reached: string[] } {
    const build = readBuild(path.join(ROOT, "examples", "chat-relay", "manifest.json"), "lin", SDK);
    const local = new Map([...build.modules].filter(([, f]) => !path.relative(ROOT, f).startsWith("..")));
    return { build, reached: checkImports({ ...build, modules: local }, MAIN).visited };
  }

  it("gives every module of ours the example imports, through the transport's and the codec's manifests", () => {
    const { build, reached } = ours();
    assert.ok(reached.includes("modules/transport/endpoint") && reached.includes("modules/protocol/codec"), reached.join(", "));
    assert.ok(build.manifests.some((m) => m.endsWith(path.join("modules", "transport", "manifest.json"))));
    assert.ok(build.manifests.some((m) => m.endsWith(path.join("modules", "protocol", "manifest.json"))));
    const missing = reached.filter((m) => m !== MAIN && !build.preload.includes(m));
    assert.deepEqual(missing, [], "every module but main is preloaded");
  });

  it("uses the transport, the codec and the native loops only: no server, no game, no host of ours", () => {
    // The transport's state is native: its binding (modules/native*) and the XS functions main hands it (hosts/moddable/kernels).
    const NATIVE = ["modules/native", "modules/native-layout", "modules/native-words", "hosts/moddable/kernels"];
    const { reached } = ours();
    const foreign = reached.filter((m) => !(m.startsWith("examples/chat-relay/") || m.startsWith("modules/transport/") || m.startsWith("modules/protocol/") || m === "modules/input" || NATIVE.includes(m)));
    assert.deepEqual(foreign, []);
    assert.deepEqual(NATIVE.filter((m) => !reached.includes(m)), [], "main installs the native transport");
  });
});

describe("examples/chat-relay builds for Moddable", function () {
  this.timeout(900_000);

  it("mcconfig -d -m -p lin -t build makes the simulator app", async function () {
    const env = buildEnv();
    env.PATH = `${path.join(ROOT, "node_modules", ".bin")}${path.delimiter}${env.PATH ?? ""}`;
    const missing = missingTools("lin", env);
    if (missing.length > 0) {
      console.log(`      skipped: the Moddable SDK is not here (${missing.join("; ")})`);
      this.skip();
    }
    const out = fs.mkdtempSync(path.join(os.tmpdir(), "chat-relay-"));
    try {
      const log = path.join(out, "build.log");
      await runMcconfig({
        args: ["-d", "-m", "-p", "lin", "-t", "build", "-o", out, path.join(ROOT, "examples", "chat-relay", "manifest.json")],
        cwd: path.join(ROOT, "examples", "chat-relay"),
        log,
        env,
        say: () => {},
      });
      const found = findFile(path.join(out, "bin"), "mc.so");
      assert.ok(found !== null, `mcconfig left no mc.so under ${out}/bin`);
    } finally {
      fs.rmSync(out, { recursive: true, force: true });
    }
  });
});
