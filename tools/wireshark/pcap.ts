/**
 * A small pcap writer (the classic libpcap format, microsecond timestamps, Ethernet link
 * type), for captures made without capture rights: lwar over UDP, and lwar carried over
 * WebSocket (an HTTP upgrade, then one binary frame per packet, on a TCP stream we
 * number ourselves). Frames are built byte by byte: Ethernet II, IPv4 (no options, with
 * its header checksum), then UDP or TCP with their checksums over the pseudo-header, so
 * Wireshark finds nothing to complain about.
 *
 * This is a tool, not the server: it allocates freely.
 */
import { createHash } from "node:crypto";

/* pcap file header, 24 bytes, little-endian
 *  0  uint32  magic          0xa1b2c3d4 (microsecond timestamps)
 *  4  uint16  version major  2
 *  6  uint16  version minor  4
 *  8  int32   thiszone       0
 * 12  uint32  sigfigs        0
 * 16  uint32  snaplen        65535
 * 20  uint32  network        1 (LINKTYPE_ETHERNET)
 * then records:
 *  0  uint32  ts_sec
 *  4  uint32  ts_usec
 *  8  uint32  incl_len
 * 12  uint32  orig_len
 * 16  bytes   the frame
 */
export const PCAP_MAGIC = 0xa1b2c3d4;
export const LINKTYPE_ETHERNET = 1;
export const SNAPLEN = 65535;
const FILE_HEADER = 24;
const RECORD_HEADER = 16;

const ETHERNET_HEADER = 14;
const ETHERTYPE_IPV4 = 0x0800;
const IPV4_HEADER = 20;
const UDP_HEADER = 8;
const TCP_HEADER = 20;
const PROTO_TCP = 6;
const PROTO_UDP = 17;

/** TCP flags. */
export const FIN = 0x01;
export const SYN = 0x02;
export const PSH = 0x08;
export const ACK = 0x10;

/** Seconds since 1970 of time 0 of a recording: 2024-01-01T00:00:00Z, so captures are reproducible. */
export const DEFAULT_EPOCH_S = 1704067200;

/** An IPv4 address as 4 bytes, from dotted text. */
export function parseIPv4(text: string): Uint8Array {
  const parts = text.split(".");
  const out = new Uint8Array(4);
  if (parts.length !== 4) throw new RangeError(`not an IPv4 address: '${text}'`);
  for (let i = 0; i < 4; i++) {
    const n = Number(parts[i]);
    if (parts[i] === "" || !Number.isInteger(n) || n < 0 || n > 255) throw new RangeError(`not an IPv4 address: '${text}'`);
    out[i] = n;
  }
  return out;
}

/** A locally administered MAC address derived from an IPv4 address: 02:00:a.b.c.d. */
function macFor(ip: Uint8Array): Uint8Array {
  return Uint8Array.of(0x02, 0x00, ip[0], ip[1], ip[2], ip[3]);
}

/** The Internet checksum (RFC 1071) of `b`, starting from the partial sum `sum`. */
export function internetChecksum(b: Uint8Array, sum = 0): number {
  for (let i = 0; i + 1 < b.length; i += 2) sum += (b[i] << 8) | b[i + 1];
  if (b.length & 1) sum += b[b.length - 1] << 8;
  while (sum > 0xffff) sum = (sum & 0xffff) + (sum >>> 16);
  return ~sum & 0xffff;
}

/** The sum over the IPv4 pseudo-header, to start a UDP or TCP checksum from. */
function pseudoSum(src: Uint8Array, dst: Uint8Array, protocol: number, length: number): number {
  return ((src[0] << 8) | src[1]) + ((src[2] << 8) | src[3]) + ((dst[0] << 8) | dst[1]) + ((dst[2] << 8) | dst[3]) + protocol + length;
}

function put16(b: Uint8Array, o: number, v: number): void {
  b[o] = v >>> 8;
  b[o + 1] = v;
}
function put32(b: Uint8Array, o: number, v: number): void {
  b[o] = v >>> 24;
  b[o + 1] = v >>> 16;
  b[o + 2] = v >>> 8;
  b[o + 3] = v;
}

/**
 * Ethernet II + IPv4 around a transport segment (UDP or TCP, checksum already in place).
 * `id` is the IPv4 identification field.
 */
function ipv4Frame(src: Uint8Array, dst: Uint8Array, protocol: number, id: number, segment: Uint8Array): Uint8Array {
  const frame = new Uint8Array(ETHERNET_HEADER + IPV4_HEADER + segment.length);
  frame.set(macFor(dst), 0);
  frame.set(macFor(src), 6);
  put16(frame, 12, ETHERTYPE_IPV4);
  /* IPv4 header, 20 bytes
   *  0  version 4, IHL 5     8  TTL 64, protocol    12  source address
   *  2  total length        10  header checksum     16  destination address
   *  4  identification, 6 flags: don't fragment
   */
  const ip = frame.subarray(ETHERNET_HEADER, ETHERNET_HEADER + IPV4_HEADER);
  ip[0] = 0x45;
  put16(ip, 2, IPV4_HEADER + segment.length);
  put16(ip, 4, id & 0xffff);
  ip[6] = 0x40;
  ip[8] = 64;
  ip[9] = protocol;
  ip.set(src, 12);
  ip.set(dst, 16);
  put16(ip, 10, internetChecksum(ip));
  frame.set(segment, ETHERNET_HEADER + IPV4_HEADER);
  return frame;
}

/* UDP header, 8 bytes
 * 0  uint16  source port     4  uint16  length (header + payload)
 * 2  uint16  dest port       6  uint16  checksum over pseudo-header, header and payload
 */
export function udpFrame(src: Uint8Array, srcPort: number, dst: Uint8Array, dstPort: number, payload: Uint8Array, id = 0): Uint8Array {
  const seg = new Uint8Array(UDP_HEADER + payload.length);
  put16(seg, 0, srcPort);
  put16(seg, 2, dstPort);
  put16(seg, 4, seg.length);
  seg.set(payload, UDP_HEADER);
  const sum = internetChecksum(seg, pseudoSum(src, dst, PROTO_UDP, seg.length));
  put16(seg, 6, sum === 0 ? 0xffff : sum);
  return ipv4Frame(src, dst, PROTO_UDP, id, seg);
}

/* TCP header, 20 bytes (no options)
 *  0  uint16  source port      8  uint32  acknowledgment number   14  uint16  window
 *  2  uint16  dest port       12  data offset 5, then flags        16  uint16  checksum
 *  4  uint32  sequence number                                      18  uint16  urgent pointer
 */
export function tcpFrame(
  src: Uint8Array, srcPort: number, dst: Uint8Array, dstPort: number,
  seq: number, ack: number, flags: number, payload: Uint8Array, id = 0,
): Uint8Array {
  const seg = new Uint8Array(TCP_HEADER + payload.length);
  put16(seg, 0, srcPort);
  put16(seg, 2, dstPort);
  put32(seg, 4, seq >>> 0);
  put32(seg, 8, ack >>> 0);
  seg[12] = (TCP_HEADER / 4) << 4;
  seg[13] = flags;
  put16(seg, 14, 65535);
  seg.set(payload, TCP_HEADER);
  put16(seg, 16, internetChecksum(seg, pseudoSum(src, dst, PROTO_TCP, seg.length)));
  return ipv4Frame(src, dst, PROTO_TCP, id, seg);
}

/** Collects frames and produces the bytes of a pcap file. */
export class PcapWriter {
  readonly #records: Uint8Array[] = [];
  #bytes = FILE_HEADER;
  readonly epochS: number;

  constructor(epochS = DEFAULT_EPOCH_S) {
    this.epochS = epochS;
  }

  /** Frames written so far. */
  get frames(): number {
    return this.#records.length;
  }

  /** Add one Ethernet frame, `ms` milliseconds after the epoch (fractions keep their microseconds). */
  frame(ms: number, frame: Uint8Array): void {
    if (!(ms >= 0)) throw new RangeError(`frame time must be >= 0 ms, got ${ms}`);
    const us = Math.round(ms * 1000);
    const rec = new Uint8Array(RECORD_HEADER + frame.length);
    const v = new DataView(rec.buffer);
    v.setUint32(0, this.epochS + Math.floor(us / 1e6), true);
    v.setUint32(4, us % 1e6, true);
    v.setUint32(8, frame.length, true);
    v.setUint32(12, frame.length, true);
    rec.set(frame, RECORD_HEADER);
    this.#records.push(rec);
    this.#bytes += rec.length;
  }

  /** A UDP datagram from src:srcPort to dst:dstPort. */
  udp(ms: number, src: string, srcPort: number, dst: string, dstPort: number, payload: Uint8Array): void {
    this.frame(ms, udpFrame(parseIPv4(src), srcPort, parseIPv4(dst), dstPort, payload, this.#records.length + 1));
  }

  /** The whole file. */
  bytes(): Uint8Array {
    const out = new Uint8Array(this.#bytes);
    const v = new DataView(out.buffer);
    v.setUint32(0, PCAP_MAGIC, true);
    v.setUint16(4, 2, true);
    v.setUint16(6, 4, true);
    v.setInt32(8, 0, true);
    v.setUint32(12, 0, true);
    v.setUint32(16, SNAPLEN, true);
    v.setUint32(20, LINKTYPE_ETHERNET, true);
    let o = FILE_HEADER;
    for (const r of this.#records) {
      out.set(r, o);
      o += r.length;
    }
    return out;
  }
}

/** The GUID RFC 6455 appends to the client's key. */
const WS_GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";
const WS_BINARY = 0x2;
const WS_CLOSE = 0x8;
const WS_FIN = 0x80;
const WS_MASKED = 0x80;

/* WebSocket frame header (RFC 6455), as used here: one frame per message
 * 0  FIN, opcode        1  MASK bit, length 0..125, or 126 then uint16 length
 * then, from the client only, a 4-byte masking key; the payload XORed with it
 */
export function wsFrame(opcode: number, payload: Uint8Array, mask: Uint8Array | null): Uint8Array {
  const ext = payload.length > 125 ? 2 : 0;
  if (payload.length > 0xffff) throw new RangeError("WebSocket frames here carry at most 65535 bytes");
  const head = 2 + ext + (mask !== null ? 4 : 0);
  const out = new Uint8Array(head + payload.length);
  out[0] = WS_FIN | opcode;
  out[1] = (mask !== null ? WS_MASKED : 0) | (ext ? 126 : payload.length);
  if (ext) put16(out, 2, payload.length);
  if (mask !== null) out.set(mask, 2 + ext);
  for (let i = 0; i < payload.length; i++) out[head + i] = mask !== null ? payload[i] ^ mask[i & 3] : payload[i];
  return out;
}

/**
 * One WebSocket connection in a capture: the TCP handshake, the HTTP upgrade to `path`,
 * binary messages both ways, and a close. Sequence numbers are kept per side; each write
 * is one segment, acknowledged by the next segment the other way.
 */
export class WebSocketStream {
  readonly #pcap: PcapWriter;
  readonly #client: Uint8Array;
  readonly #server: Uint8Array;
  readonly #clientPort: number;
  readonly #serverPort: number;
  #clientSeq = 1000;
  #serverSeq = 5000;
  #masks = 0;

  constructor(pcap: PcapWriter, client: string, clientPort: number, server: string, serverPort: number) {
    this.#pcap = pcap;
    this.#client = parseIPv4(client);
    this.#server = parseIPv4(server);
    this.#clientPort = clientPort;
    this.#serverPort = serverPort;
  }

  #segment(ms: number, fromClient: boolean, flags: number, payload: Uint8Array): void {
    const id = this.#pcap.frames + 1;
    const frame = fromClient
      ? tcpFrame(this.#client, this.#clientPort, this.#server, this.#serverPort, this.#clientSeq, this.#serverSeq, flags, payload, id)
      : tcpFrame(this.#server, this.#serverPort, this.#client, this.#clientPort, this.#serverSeq, this.#clientSeq, flags, payload, id);
    this.#pcap.frame(ms, frame);
    const used = payload.length + (flags & (SYN | FIN) ? 1 : 0);
    if (fromClient) this.#clientSeq = (this.#clientSeq + used) >>> 0;
    else this.#serverSeq = (this.#serverSeq + used) >>> 0;
  }

  /** TCP handshake, then `GET path` with an upgrade and the server's 101. */
  open(ms: number, path = "/ws", host = "lwar.local"): void {
    this.#pcap.frame(ms, tcpFrame(this.#client, this.#clientPort, this.#server, this.#serverPort, this.#clientSeq, 0, SYN, new Uint8Array(0), this.#pcap.frames + 1));
    this.#clientSeq++;
    this.#segment(ms, false, SYN | ACK, new Uint8Array(0));
    this.#segment(ms, true, ACK, new Uint8Array(0));
    const key = Buffer.from(`lwar-pcap-${this.#clientPort}`.padEnd(16, "-").slice(0, 16)).toString("base64");
    const accept = createHash("sha1").update(key + WS_GUID).digest("base64");
    const request =
      `GET ${path} HTTP/1.1\r\nHost: ${host}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
      `Sec-WebSocket-Key: ${key}\r\nSec-WebSocket-Version: 13\r\n\r\n`;
    const response =
      `HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
      `Sec-WebSocket-Accept: ${accept}\r\n\r\n`;
    this.#segment(ms, true, PSH | ACK, Buffer.from(request, "latin1"));
    this.#segment(ms, false, PSH | ACK, Buffer.from(response, "latin1"));
  }

  /** One binary message: masked from the client, as RFC 6455 requires, plain from the server. */
  message(ms: number, fromClient: boolean, payload: Uint8Array): void {
    this.#segment(ms, fromClient, PSH | ACK, wsFrame(WS_BINARY, payload, fromClient ? this.#nextMask() : null));
  }

  /** A close frame from the server with `code` and `reason`, the client's answer, then FINs. */
  close(ms: number, code: number, reason: string): void {
    const body = new Uint8Array(2 + reason.length);
    put16(body, 0, code);
    body.set(Buffer.from(reason, "latin1"), 2);
    this.#segment(ms, false, PSH | ACK, wsFrame(WS_CLOSE, body, null));
    this.#segment(ms, true, PSH | ACK, wsFrame(WS_CLOSE, body.subarray(0, 2), this.#nextMask()));
    this.#segment(ms, false, FIN | ACK, new Uint8Array(0));
    this.#segment(ms, true, FIN | ACK, new Uint8Array(0));
    this.#segment(ms, false, ACK, new Uint8Array(0));
  }

  /** A fixed, varying mask, so captures are reproducible. */
  #nextMask(): Uint8Array {
    const n = ++this.#masks;
    return Uint8Array.of(0x5a ^ n, 0xa5 ^ (n >>> 8), 0x3c ^ n, 0xc3);
  }
}
