// A replay that plays by itself: one ply a second at 1×, the viewer's speed select dividing the delay.
// Shared by Domain Wheel's replay (ui/replay.js) and Frontera's (ui/frontera.js). A viewer has `ply`, `plies`,
// `goto(ply)` (async), `speedSel`, a `timer` slot and `_playing(on)`, which shows the state on its button.

/** Start playing `viewer` from its current ply (from the start when it is at the end). */
export function startAutoplay(viewer) {
  if (viewer.ply >= viewer.plies) viewer.goto(0);
  const delay = () => 1000 / Number(viewer.speedSel.value);
  const tick = async () => {
    if (!viewer.timer) return;
    await viewer.goto(viewer.ply + 1);
    if (viewer.ply >= viewer.plies) stopAutoplay(viewer);
    else if (viewer.timer) viewer.timer = setTimeout(tick, delay());
  };
  viewer.timer = setTimeout(tick, delay());
  viewer._playing(true);
}

/** Stop `viewer`'s playing, if it plays. */
export function stopAutoplay(viewer) {
  clearTimeout(viewer.timer);
  viewer.timer = null;
  viewer._playing(false);
}
