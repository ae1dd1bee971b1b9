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
const SPEAKER =
  '<svg viewBox="0 0 24 24" width="20" height="20" aria-hidden="true" fill="none" stroke="currentColor" stroke-width="2" ' +
  'stroke-linecap="round" stroke-linejoin="round"><path d="M4 9h4l5-4v14l-5-4H4z" fill="currentColor"/>';
const SPEAKER_ON = `${SPEAKER}<path d="M16.5 8.5a5 5 0 0 1 0 7M19 6a8.5 8.5 0 0 1 0 12"/></svg>`;
const SPEAKER_OFF = `${SPEAKER}<path d="M16 9l6 6M22 9l-6 6"/></svg>`;

export function showMute(button: HTMLButtonElement, muted: boolean): void {
  // A speaker drawn inline: no emoji font needed (headless browsers and some phones lack one).
  button.innerHTML = muted ? SPEAKER_OFF : SPEAKER_ON;
  button.title = muted ? "Sound off (M)" : "Sound on (M)";
  button.setAttribute("aria-pressed", muted ? "true" : "false");
}
