/**
 * An emulated ESP32: QEMU's `esp32` machine booting a firmware built by mcconfig, its UART
 * read line by line, its Ethernet (open_eth) on QEMU's user network with the game's UDP
 * port and the HTTP port forwarded from 127.0.0.1 only.
 */
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import dgram from "node:dgram";
import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import readline from "node:readline";
import { missingTools, which } from "./kit";

/** The emulated board's tools: the build's (missingTools) and QEMU with the esp32 machine. */
export function emulatorTools(env: NodeJS.ProcessEnv): { qemu: string; missing: string[] } {
  const missing = missingTools("esp32", env);
  const qemu = which("qemu-system-xtensa", env);
  if (qemu === null) missing.push("qemu-system-xtensa is not on PATH (the ESP32 kit's QEMU with the esp32 machine)");
  return { qemu: qemu ?? "", missing };
}

/** The flash image QEMU boots: bootloader, partition table and app at their offsets, 4 MB. */
export function mergeFlash(idfBuild: string, out: string, env: NodeJS.ProcessEnv): void {
  execFileSync("python", ["-m", "esptool", "--chip", "esp32", "merge-bin", "--fill-flash-size", "4MB", "-o", out, "@flash_args"], {
    cwd: idfBuild,
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
}

/** A UDP port free on 127.0.0.1 now. */
export function freeUdpPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = dgram.createSocket("udp4");
    s.once("error", reject);
    s.bind(0, "127.0.0.1", () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

/** A TCP port free on 127.0.0.1 now. */
export function freeTcpPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

export interface QemuOptions {
  qemu: string;
  flash: string;
  /** Host ports forwarded to the board's UDP 32422 and TCP 80; none when undefined. */
  udpPort?: number;
  httpPort?: number;
  /** `-icount shift=N`: guest time counts instructions (2^N ns each). */
  icountShift?: number;
  /** Every UART line goes here too. */
  log: string;
  /** Let the board reboot (a panic, a watchdog, esp_restart) instead of QEMU exiting on a reset. */
  reboot?: boolean;
  env: NodeJS.ProcessEnv;
  onLine: (line: string) => void;
  /** A TCG plugin and its options (`-plugin FILE,OPTS`): the kit's cycle model, say. */
  plugin?: string;
  /** QEMU's own lines on stderr (a plugin's output among them); they go to the log as well. */
  onError?: (line: string) => void;
}

export class Board {
  readonly child: ChildProcess;
  exited = false;
  exitCode: number | null = null;
  readonly done: Promise<void>;
  readonly #log: fs.WriteStream;

  constructor(o: QemuOptions) {
    const nic = ["user", "model=open_eth"];
    if (o.udpPort !== undefined) nic.push(`hostfwd=udp:127.0.0.1:${o.udpPort}-:32422`);
    if (o.httpPort !== undefined) nic.push(`hostfwd=tcp:127.0.0.1:${o.httpPort}-:80`);
    const args = ["-nographic", "-machine", "esp32", ...(o.reboot === true ? [] : ["-no-reboot"]), "-drive", `file=${o.flash},if=mtd,format=raw`, "-nic", nic.join(",")];
    if (o.icountShift !== undefined) args.push("-icount", `shift=${o.icountShift},align=off,sleep=off`);
    if (o.plugin !== undefined) args.push("-plugin", o.plugin);
    fs.mkdirSync(path.dirname(o.log), { recursive: true });
    this.#log = fs.createWriteStream(o.log);
    this.#log.write(`# ${o.qemu} ${args.join(" ")}\n`);
    // -nographic multiplexes the monitor on stdin: give it a pipe that is never written.
    this.child = spawn(o.qemu, args, { env: o.env, stdio: ["pipe", "pipe", "pipe"], detached: true });
    this.done = new Promise((resolve) => {
      this.child.once("exit", (code, signal) => {
        this.exited = true;
        this.exitCode = code ?? (signal !== null ? 128 : null);
        resolve();
      });
    });
    const onError = o.onError;
    if (onError === undefined) this.child.stderr?.on("data", (d: Buffer) => this.#log.write(d));
    else {
      readline.createInterface({ input: this.child.stderr! }).on("line", (raw) => {
        this.#log.write(`${raw}\n`);
        onError(raw);
      });
    }
    readline.createInterface({ input: this.child.stdout! }).on("line", (raw) => {
      const line = raw.replace(/\r$/, "");
      this.#log.write(`${line}\n`);
      o.onLine(line);
    });
  }

  /** Stops QEMU (its whole process group). */
  async stop(): Promise<void> {
    if (!this.exited && this.child.pid !== undefined) {
      try {
        process.kill(-this.child.pid, "SIGTERM");
      } catch {
        // gone
      }
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([this.done, new Promise<void>((r) => (timer = setTimeout(r, 3000)))]);
      clearTimeout(timer);
      if (!this.exited) {
        try {
          process.kill(-this.child.pid, "SIGKILL");
        } catch {
          // gone
        }
        await this.done;
      }
    }
    await new Promise<void>((r) => this.#log.end(r));
  }

  /** Last resort on process exit. */
  killNow(): void {
    if (!this.exited && this.child.pid !== undefined) {
      try {
        process.kill(-this.child.pid, "SIGKILL");
      } catch {
        // gone
      }
    }
  }
}

/** Lines that mean the firmware failed: an abort, a panic, a reset, a missing module. */
export function bootFailure(line: string): string | null {
  if (/XS abort|Guru Meditation|abort\(\) was called|module ".*" not found|Backtrace:/.test(line)) return line;
  if (/^rst:0x[0-9a-f]+ \((?!POWERON)/.test(line)) return line;
  return null;
}
