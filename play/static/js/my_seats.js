// The seats this browser holds, remembered in localStorage so "Tus partidas" can list its games and the host can
// manage its rooms after a reload (docs/PLAY.md "Tus partidas"). Tokens stay in this browser: they are sent only
// in a websocket hello or in the body of POST /api/my-games, never in a URL the server sees.

const STORAGE_KEY = "dw.seats";
/** The most seats remembered; the oldest are forgotten first. */
export const MAX_SEATS = 50;

function load() {
  try {
    const value = JSON.parse(localStorage.getItem(STORAGE_KEY) || "[]");
    return Array.isArray(value) ? value.filter((s) => s && typeof s.room === "string") : [];
  } catch {
    return [];  // a damaged entry (another program, a manual edit) is forgotten, not fatal
  }
}

function store(seats) {
  try {
    localStorage.setItem(STORAGE_KEY, JSON.stringify(seats.slice(-MAX_SEATS)));
  } catch {
    // storage full or disabled (private mode): the game still plays, it is only not remembered
  }
}

/** Return every remembered seat, oldest first: [{room, seat, token, game, host_token?, saved_at}]. */
export function heldSeats() {
  return load();
}

/** Remember (or refresh) that this browser plays `seat` of `room` with `token`. */
export function rememberSeat({ room, seat, token, game = null }) {
  if (!room || token == null || seat == null) return;
  const seats = load();
  const old = seats.find((s) => s.room === room && s.seat === Number(seat));
  const entry = { ...(old || {}), room, seat: Number(seat), token, game: game || old?.game || null, saved_at: Date.now() };
  store([...seats.filter((s) => s !== old), entry]);
}

/** Remember the host token of a room this browser created. */
export function rememberHost(room, hostToken) {
  if (!room || !hostToken) return;
  const seats = load();
  const entry = seats.find((s) => s.room === room) || { room, seat: null, token: null, game: null };
  entry.host_token = hostToken;
  entry.saved_at = Date.now();
  store([...seats.filter((s) => s !== entry), entry]);
}

/** Return the host token this browser holds for `room`, or null. */
export function hostToken(room) {
  return load().find((s) => s.room === room && s.host_token)?.host_token || null;
}

/** Forget a seat (left the game, or its token no longer opens it); `seat` null forgets the whole room. */
export function forgetSeat(room, seat = null) {
  store(load().filter((s) => s.room !== room || (seat !== null && s.seat !== Number(seat))));
}
