/**
 * The page's elements that come with the kill feed, the hit flash and sound. Their markup
 * and style are in index.html with the rest of the layout.
 */

export interface Overlays {
  feed: HTMLElement;
  flash: HTMLElement;
  mute: HTMLButtonElement;
}

export function addOverlays(): Overlays {
  return {
    feed: document.getElementById("feed") as HTMLElement,
    flash: document.getElementById("flash") as HTMLElement,
    mute: document.getElementById("mute") as HTMLButtonElement,
  };
}

/** Show `muted` on the button. */
export function showMute(button: HTMLButtonElement, muted: boolean): void {
  button.textContent = muted ? "\u{1F507}" : "\u{1F50A}";
  button.title = muted ? "Sound off (M)" : "Sound on (M)";
  button.setAttribute("aria-pressed", muted ? "true" : "false");
}
