/**
 * The page's elements that come with the kill feed, the hit flash and sound: made here,
 * with their style, so the page's markup stays as it is.
 */

const CSS =
  "#feed{position:fixed;top:46px;left:50%;transform:translateX(-50%);font-size:13px;text-align:center;pointer-events:none;text-shadow:0 1px 2px #000;white-space:nowrap}" +
  "#feed div{padding:1px 0}#feed .mine{color:#ffd84a;font-weight:600}" +
  "#flash{position:fixed;inset:0;pointer-events:none;opacity:0;box-shadow:inset 0 0 90px 24px rgba(255,40,30,.9)}" +
  "#mute{position:fixed;top:8px;left:50%;margin-left:190px;width:34px;height:30px;padding:0}" +
  "#overlay.death{background:rgba(46,10,10,.78)}" +
  "@media (max-width:600px){#mute{left:auto;right:8px;top:auto;bottom:280px;margin:0}}";

export interface Overlays {
  feed: HTMLElement;
  flash: HTMLElement;
  mute: HTMLButtonElement;
}

export function addOverlays(): Overlays {
  const style = document.createElement("style");
  style.textContent = CSS;
  document.head.append(style);
  const feed = document.createElement("div");
  feed.id = "feed";
  const flash = document.createElement("div");
  flash.id = "flash";
  const mute = document.createElement("button");
  mute.id = "mute";
  mute.type = "button";
  // Behind the canvas's panels in document order: the flash under the menu, the feed under the status.
  const canvas = document.getElementById("arena");
  if (canvas !== null) canvas.after(flash, feed, mute);
  else document.body.append(flash, feed, mute);
  return { feed, flash, mute };
}

/** Show `muted` on the button. */
export function showMute(button: HTMLButtonElement, muted: boolean): void {
  button.textContent = muted ? "\u{1F507}" : "\u{1F50A}";
  button.title = muted ? "Sound off (M)" : "Sound on (M)";
  button.setAttribute("aria-pressed", muted ? "true" : "false");
}
