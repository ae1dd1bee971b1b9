/**
 * The captive portal's DNS answers (hosts/moddable/dns.ts) on Node, without the SDK: served
 * over a real UDP socket and asked by Node's own resolver, then datagrams that get no answer.
 */
import assert from "node:assert/strict";
import dgram from "node:dgram";
import { promises as dns } from "node:dns";
import { answerQuery, DNS_TTL, ipv4Bytes } from "../../hosts/moddable/dns";

/** A query for `name`, type `type`, class IN, with recursion desired. */
function query(name: string, type: number, id = 0x1234): Uint8Array {
  const labels = name.split(".").flatMap((l) => [l.length, ...Buffer.from(l, "ascii")]);
  return Uint8Array.from([id >> 8, id & 0xff, 0x01, 0x00, 0, 1, 0, 0, 0, 0, 0, 0, ...labels, 0, type >> 8, type & 0xff, 0, 1]);
}

describe("board captive DNS", function () {
  const ip = new Uint8Array(4);
  let server: dgram.Socket;
  let port = 0;

  before(async function () {
    assert.ok(ipv4Bytes("192.168.4.1", ip));
    server = dgram.createSocket("udp4");
    const out = new Uint8Array(512);
    server.on("message", (msg, from) => {
      const n = answerQuery(msg, msg.length, ip, out);
      if (n > 0) server.send(out.subarray(0, n), from.port, from.address);
    });
    await new Promise<void>((resolve) => server.bind(0, "127.0.0.1", () => resolve()));
    port = server.address().port;
  });

  after(function () {
    server.close();
  });

  it("answers every name's A query with the board's address, and AAAA with no record and no error", async function () {
    const resolver = new dns.Resolver({ timeout: 2000, tries: 1 });
    resolver.setServers([`127.0.0.1:${port}`]);
    for (const name of ["connectivitycheck.gstatic.com", "captive.apple.com", "www.msftconnecttest.com", "lwar"]) {
      assert.deepEqual(await resolver.resolve4(name, { ttl: true }), [{ address: "192.168.4.1", ttl: DNS_TTL }], name);
    }
    await assert.rejects(resolver.resolve6("captive.apple.com"), (e: NodeJS.ErrnoException) => e.code === "ENODATA");
    await assert.rejects(resolver.resolveMx("lwar.game"), (e: NodeJS.ErrnoException) => e.code === "ENODATA");
  });

  it("copies the id and the question, and sets QR and AA", function () {
    const out = new Uint8Array(512);
    const q = query("a.b", 1, 0xbeef);
    const n = answerQuery(q, q.length, ip, out);
    assert.equal(n, q.length + 16);
    assert.deepEqual([...out.subarray(0, 2)], [0xbe, 0xef]);
    assert.equal(out[2], 0x85); // QR, AA, RD
    assert.deepEqual([...out.subarray(4, 12)], [0, 1, 0, 1, 0, 0, 0, 0]);
    assert.deepEqual([...out.subarray(12, q.length)], [...q.subarray(12)]);
    assert.deepEqual([...out.subarray(n - 4, n)], [192, 168, 4, 1]);
  });

  it("gives no answer to responses, other opcodes, several questions, bad names or short datagrams", function () {
    const out = new Uint8Array(512);
    const cases: [string, Uint8Array][] = [];
    const response = query("a.b", 1);
    response[2] |= 0x80;
    cases.push(["a response", response]);
    const update = query("a.b", 1);
    update[2] |= 5 << 3;
    cases.push(["an update", update]);
    const two = query("a.b", 1);
    two[5] = 2;
    cases.push(["two questions", two]);
    const pointer = query("a.b", 1);
    pointer[12] = 0xc0;
    cases.push(["a compressed name", pointer]);
    cases.push(["a name running off the end", query("abcdef", 1).subarray(0, 16)]);
    cases.push(["a header alone", query("a", 1).subarray(0, 12)]);
    for (const [what, q] of cases) assert.equal(answerQuery(q, q.length, ip, out), 0, what);
    const long = query("a".repeat(63) + "." + "b".repeat(63), 1);
    assert.equal(answerQuery(long, long.length, ip, new Uint8Array(long.length + 15)), 0, "an answer that does not fit");
  });

  it("reads dotted IPv4 addresses only", function () {
    const b = new Uint8Array(4);
    assert.ok(ipv4Bytes("10.0.0.255", b));
    assert.deepEqual([...b], [10, 0, 0, 255]);
    for (const bad of ["", "1.2.3", "1.2.3.256", "1.2.3.x", "1..2.3", "::1"]) assert.equal(ipv4Bytes(bad, b), false, bad);
  });
});
