// HTTP + websocket client of the play server (docs/PLAY.md). Game-agnostic: it moves JSON, it knows no rules.

const BASE = new URL("../../", import.meta.url); // play/static/js/api.js -> the site root serving /api

function apiURL(path) {
  return new URL(path.replace(/^\//, ""), BASE);
}

export class ApiError extends Error {
  constructor(status, body) {
    super(body?.error?.message || body?.message || `HTTP ${status}`);
    this.status = status;
    this.body = body;
    this.code = body?.error?.code || body?.code || null;
  }
}

async function request(method, path, body) {
  const res = await fetch(apiURL(path), {
    method,
    headers: body === undefined ? {} : { "Content-Type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  let data = null;
  const text = await res.text();
  try {
    data = text ? JSON.parse(text) : null;
  } catch {
    data = { message: text };
  }
  if (!res.ok) throw new ApiError(res.status, data);
  return data;
}

export const get = (path) => request("GET", path);
export const post = (path, body = {}) => request("POST", path, body);

/** The websocket URL of a path on the same host (ws: or wss:). */
export function wsURL(path) {
  const u = apiURL(path);
  u.protocol = u.protocol === "https:" ? "wss:" : "ws:";
  return u;
}

/**
 * A room connection: JSON messages in both directions, automatic reconnection with backoff (the seat token resumes
 * the seat). onMessage(msg) gets every server message; onStatus("open" | "reconnecting" | "refused", detail) the
 * link state (for "reconnecting", detail is {seconds} until the next try).
 */
export class RoomSocket {
  constructor(url, { onMessage, onStatus } = {}) {
    this.url = url;
    this.onMessage = onMessage || (() => {});
    this.onStatus = onStatus || (() => {});
    this.closed = false;
    this.retry = 0;
    this.queue = [];
    this._open();
  }

  _open() {
    const ws = new WebSocket(this.url);
    this.ws = ws;
    ws.addEventListener("open", () => {
      this.retry = 0;
      this.onStatus("open");
      for (const m of this.queue.splice(0)) ws.send(JSON.stringify(m));
    });
    ws.addEventListener("message", (ev) => {
      let msg;
      try {
        msg = JSON.parse(ev.data);
      } catch {
        return;
      }
      this.onMessage(msg);
    });
    ws.addEventListener("close", (ev) => {
      if (this.closed) return;
      if (ev.code >= 4000) {
        // the server refused the seat or room for good (bad token, unknown room): do not retry
        this.onStatus("refused", ev.reason);
        return;
      }
      const delay = Math.min(5000, 250 * 2 ** this.retry++);
      this.onStatus("reconnecting", { seconds: Math.ceil(delay / 1000) });
      setTimeout(() => !this.closed && this._open(), delay);
    });
  }

  send(msg) {
    if (this.ws.readyState === WebSocket.OPEN) this.ws.send(JSON.stringify(msg));
    else this.queue.push(msg);
  }

  close() {
    this.closed = true;
    this.ws.close();
  }
}

// ---- the play server's API (docs/PLAY.md) -------------------------------------------------------------------

let menuCache = null;

/** GET /api/menu (cached): games (seats, options), strategies, AI speeds, default names, limits. */
export async function menu() {
  if (!menuCache) menuCache = await get("/api/menu");
  return menuCache;
}

/** The Domain Wheel entry of the menu (seats and options with their ranges). */
export async function gameMenu(game = "domain_wheel") {
  const m = await menu();
  return m.games.find((g) => g.id === game) || m.games[0];
}

/** Every strategy a seat can take: [{id, kind, display_name, card}]. */
export async function strategies() {
  return (await menu()).strategies;
}

/** The strategies of one game (its own AIs, and the checkpoints and packages made for it). */
export async function strategiesFor(game) {
  const m = await menu();
  return (m.strategies_by_game && m.strategies_by_game[game]) || (game === "domain_wheel" ? m.strategies : []);
}

/**
 * POST /api/rooms from the menu's choice {options, players: [{name, strategy|null}], ai_speed}.
 * Returns the server's answer plus `invites` [{seat, name, url}] for the human seats and `spectator_url`.
 */
export async function createRoom({ options, players, ai_speed = "normal", game = "domain_wheel", clock = "none" }) {
  const seats = players.map((p) =>
    p.strategy ? { type: "ai", strategy: p.strategy, name: p.name || undefined } : { type: "human", name: p.name });
  const res = await post("/api/rooms", { game, options, seats, ai_speed, clock });
  const abs = (link) => new URL(link, BASE).href;
  res.invites = res.seats.filter((s) => s.type === "human").map((s) => ({ seat: s.seat, name: s.name, url: abs(s.link) }));
  res.spectator_url = abs(res.spectate);
  return res;
}

/** The chat lines a room sends in its welcome and a page keeps (docs/PLAY.md, "Chat"). */
export const CHAT_MEMORY = 200;

/** A fresh client move id: a move resent after a dropped connection carries the same one (applied at most once). */
function moveId() {
  return globalThis.crypto?.randomUUID?.() || `${Date.now().toString(36)}-${Math.random().toString(36).slice(2)}`;
}

/**
 * Join a room over the websocket (hello -> welcome). Resolves to a connection once welcomed:
 * {seat, role, room, layout, view, players, speed, chat, select(qr), act(input), setSpeed(s), say(text), onView(fn),
 *  onError(fn), onStatus(fn), onRoom(fn), onChat(fn), close()}. `chat` is the room's last chat lines (the welcome's,
 *  then every `chat` message; at most CHAT_MEMORY); say(text) resolves to the line once the room has it, or rejects
 *  with the refusal (an ApiError with its code). A dropped socket reconnects and says hello again with the room's event version
 * it holds (the token resumes the seat; the welcome's state is the truth); an input whose answer was lost is resent
 * with its move id. onStatus(fn) gets (state, detail): "open", "reconnecting" ({seconds}), "restored" (the server
 * restarted and the game was restored), "gone" (the room no longer exists), "replaced" (the seat was opened in another
 * tab: this one only watches), "left" (this tab's player left the game: it watches now), "refused" or "bye_<reason>"
 * ("bye_seat_handed_over": the host gave the seat to someone else). With the room's host token (`host`) the socket is
 * the host's (conn.host): conn.replaceSeat(seat, {by, strategy, name}) -> Promise<answer>; any player or the host
 * may conn.rematch() -> Promise<{room}>; onRematch(fn) hears of a rematch room (docs/PLAY.md "Seats change hands").
 */
export function joinRoom(roomId, token = null, seat = null, host = null) {
  return new Promise((resolve, reject) => {
    let nextId = 1;
    const pending = new Map();
    const saying = new Map(); // chat lines sent, by message id, until the room has them or refuses them
    const handlers = { view: [], error: [], status: [], room: [], chat: [], rematch: [] };
    const emit = (kind, arg, detail) => handlers[kind].forEach((fn) => fn(arg, detail));
    let welcomed = false;
    let version = null; // the room's event version this page holds
    let serverId = null; // changes when the server restarts
    let unanswered = null; // the last input sent, until its answer arrives
    const conn = {
      seat: null,
      role: null,
      room: null,
      layout: null,
      view: null,
      players: [],
      speed: "normal",
      chat: [],
      select(qr) {
        return new Promise((res, rej) => {
          const id = nextId++;
          pending.set(id, { res, rej });
          sock.send({ type: "select", cell: qr, id });
        });
      },
      act(input) {
        const { action, ...rest } = input;
        unanswered = { type: action, ...rest, ply: conn.view?.ply, move_id: moveId(), id: nextId++ };
        sock.send(unanswered);
      },
      setSpeed(speed) {
        sock.send({ type: "set_speed", speed, id: nextId++ });
      },
      say(text) {
        return new Promise((res, rej) => {
          const id = nextId++;
          saying.set(id, { res, rej });
          sock.send({ type: "chat", text, id });
        });
      },
      get token() {
        return token;
      },
      /** Send a seat change (leave, replace_seat, rematch); resolve with its answer, reject with its error. */
      request(message) {
        return new Promise((res, rej) => {
          const id = nextId++;
          pending.set(id, { res, rej });
          sock.send({ ...message, id });
        });
      },
      leave: () => conn.request({ type: "leave" }),
      replaceSeat: (s, change) => conn.request({ type: "replace_seat", seat: s, ...change }),
      rematch: () => conn.request({ type: "rematch" }),
      onRematch: (fn) => handlers.rematch.push(fn),
      onView: (fn) => handlers.view.push(fn),
      onError: (fn) => handlers.error.push(fn),
      onStatus: (fn) => handlers.status.push(fn),
      onRoom: (fn) => handlers.room.push(fn),
      onChat: (fn) => handlers.chat.push(fn),
      close: () => sock.close(),
    };
    const setRoom = (summary) => {
      if (!summary) return;
      conn.room = summary;
      conn.speed = summary.ai_speed || conn.speed;
      conn.players = summary.seats.map((s) => ({
        name: s.name,
        ai: s.type === "ai" ? s.strategy : null,
        aiName: s.strategy_name || s.strategy,
        connected: s.connected,
      }));
      emit("room", summary);
    };
    const hello = () => {
      const m = { type: "hello", room: roomId };
      if (token) m.token = token;
      if (seat !== null && seat !== undefined && token) m.seat = Number(seat);
      if (version !== null) m.version = version;
      if (host) m.host = host;
      return m;
    };
    const sock = new RoomSocket(wsURL("/ws"), {
      onStatus: (s, detail) => {
        if (s === "open") {
          sock.ws.send(JSON.stringify(hello()));
          if (welcomed) return; // "open" (or "restored") is said once the welcome is back, not before
        }
        emit("status", s, detail);
        if (s === "refused" && !welcomed) reject(new Error(detail || "refused"));
      },
      onMessage: (msg) => {
        if (msg.type === "welcome") {
          conn.seat = msg.seat;
          conn.role = msg.role;
          conn.host = Boolean(msg.host);
          conn.layout = msg.layout;
          conn.view = msg.state;
          version = msg.version ?? null;
          conn.chat = (msg.chat || []).slice(-CHAT_MEMORY); // the room's own list: the truth after any gap
          setRoom(msg.room);
          const restarted = serverId !== null && msg.server !== serverId;
          serverId = msg.server ?? null;
          if (!welcomed) {
            welcomed = true;
            resolve(conn);
            return;
          }
          emit("view", msg.state);
          // a line sent before the connection dropped may or may not have been said: the welcome's list tells
          for (const { rej } of saying.values()) rej(new ApiError(0, { code: "connection_lost", message: "connection lost" }));
          saying.clear();
          emit("chat", null);
          emit("status", restarted ? "restored" : "open");
          if (unanswered) {
            unanswered = { ...unanswered, id: nextId++ }; // the same move id: the server applies it at most once
            sock.send(unanswered);
          }
        } else if (msg.type === "state") {
          if (msg.version !== undefined && version !== null && msg.version < version) return; // an older truth
          if (unanswered && msg.re === unanswered.id) unanswered = null;
          if (msg.duplicate !== undefined) unanswered = null;
          version = msg.version ?? version;
          conn.view = msg.state;
          setRoom(msg.room);
          emit("view", msg.state);
        } else if (msg.type === "room") {
          setRoom(msg.room);
          if (pending.has(msg.re)) pending.get(msg.re).res(msg);
          pending.delete(msg.re);
        } else if (msg.type === "chat") {
          const { re, ...line } = msg;
          if (!conn.chat.length || line.version > conn.chat[conn.chat.length - 1].version) {
            conn.chat = [...conn.chat, line].slice(-CHAT_MEMORY);
            if (version !== null && line.version > version) version = line.version;
            emit("chat", line);
          }
          saying.get(re)?.res(line);
          saying.delete(re);
        } else if (msg.type === "left" || msg.type === "seat_link") {
          if (msg.type === "left") {
            token = null; // this tab watches now: its reconnections say hello as a spectator
            conn.seat = null;
            conn.role = "spectator";
            emit("status", "left");
          }
          pending.get(msg.re)?.res(msg);
          pending.delete(msg.re);
        } else if (msg.type === "rematch") {
          conn.room = { ...conn.room, rematch: msg.room };
          pending.get(msg.re)?.res(msg);
          pending.delete(msg.re);
          emit("rematch", msg.room);
        } else if (msg.type === "destinations") {
          pending.get(msg.re)?.res(msg);
          pending.delete(msg.re);
        } else if (msg.type === "error") {
          if (unanswered && msg.re !== undefined && msg.re === unanswered.id) unanswered = null;
          if (msg.code === "no_such_room" && welcomed) {
            // the room is gone (expired, or lost by the server): say so, stop retrying, take no more clicks
            sock.close();
            emit("status", "gone");
            return;
          }
          if (saying.has(msg.re)) {
            saying.get(msg.re).rej(new ApiError(400, msg));
            saying.delete(msg.re);
          } else if (pending.has(msg.re)) {
            pending.get(msg.re).rej(new ApiError(400, msg));
            pending.delete(msg.re);
          } else if (!welcomed) {
            sock.close();
            reject(new ApiError(400, msg));
          } else emit("error", msg);
        } else if (msg.type === "replaced") {
          // the seat is open in another tab: this one only watches, and its reconnections must not take it back
          token = null;
          conn.replaced = true;
          emit("status", "replaced");
        } else if (msg.type === "bye") {
          if (msg.reason === "replaced" || msg.reason === "seat_handed_over") sock.close();
          emit("status", `bye_${msg.reason}`);
        }
      },
    });
  });
}

/** GET /api/tutorial: {layouts, steps}. Steps get their full action views from GET /api/tutorial/{id}. */
export const tutorial = () => get("/api/tutorial");
export const tutorialStep = (id) => get(`/api/tutorial/${encodeURIComponent(id)}`);

/** GET /api/records: the saved games, newest first. */
export async function records() {
  return (await get("/api/records")).records;
}

const encodeId = (id) => id.split("/").map(encodeURIComponent).join("/");

/** Open a record by its id: {id, players, result, plies, options, moves, layout}. */
export const openRecord = (id) => get(`/api/records/${encodeId(id)}`);
/** The state view after n moves of a record. */
export const recordView = (id, n) => get(`/api/records/${encodeId(id)}/ply/${n}`);
