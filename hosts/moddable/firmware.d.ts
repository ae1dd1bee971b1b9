/** Writes a new app image into the next app slot (ESP32's esp_ota_*); `complete` checks it whole and boots it next. */
export default class OTA {
  /** Opens the next app slot; throws when there is none. */
  constructor();
  /** The next bytes of the image; throws when they cannot be written (the first byte is not an image's). */
  write(data: ArrayBuffer | Uint8Array): void;
  cancel(): void;
  /** Checks the image (its segments and SHA-256) and makes it the one to boot; throws when it is damaged or incomplete. */
  complete(): void;
}
