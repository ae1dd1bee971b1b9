/**
 * "ota" where the platform has no app slots to update (the simulator): the SDK's OTA module
 * is ESP32 only. setup.ts never gets this far there (updateRoom() is 0: /update says 501).
 */
export default class OTA {
  constructor() {
    throw new Error("no updates over the air on this platform");
  }
  write(_data: ArrayBuffer | Uint8Array): void {}
  cancel(): void {}
  complete(): void {}
}
