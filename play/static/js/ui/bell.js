// The bell that rings when your turn comes in another of your games (the Frontera rules page, "Otras partidas"). It is
// synthesised with the Web Audio API (three sine partials of a struck bell, dying away in about 1.5 s), so the page
// ships no sound file. A browser without Web Audio, or one that refuses it, stays silent: the list still marks the
// game, and the tab title counts it.

/** The partials of the bell: frequency (Hz) and loudness relative to the first. */
const PARTIALS = [[880, 1], [1760, 0.45], [2640, 0.2]];
const SECONDS = 1.5;

let context = null;

/** Ring the bell once; return whether the browser took the sound. */
export function ring() {
  const Context = window.AudioContext || window.webkitAudioContext;
  if (!Context) return false;
  try {
    context ||= new Context();
    context.resume?.().catch(() => {});  // a page the player never touched may keep it suspended: then it is silent
    const now = context.currentTime;
    const out = context.createGain();
    out.gain.setValueAtTime(0.0001, now);
    out.gain.exponentialRampToValueAtTime(0.25, now + 0.01);
    out.gain.exponentialRampToValueAtTime(0.0001, now + SECONDS);
    out.connect(context.destination);
    for (const [frequency, loudness] of PARTIALS) {
      const tone = context.createOscillator();
      tone.frequency.value = frequency;
      const gain = context.createGain();
      gain.gain.value = loudness;
      tone.connect(gain).connect(out);
      tone.start(now);
      tone.stop(now + SECONDS);
    }
    return true;
  } catch {
    return false;
  }
}
