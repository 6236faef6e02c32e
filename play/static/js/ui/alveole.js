// The Alveole screens: its menu (seats, names, the ply limit, AI speed) and its game screen (board, seat cards, turn
// banner, move log, the end with its reason and the winning group). The room, seats, tokens and AI turns are the
// play server's, exactly as for Domain Wheel; the menu, screen and replay plumbing every board game shares are
// ui/board_game.js's: only the board, the ply limit, the card's numbers and the texts are Alveole's.

import { t } from "../i18n.js";
import { el } from "./hud.js";
import { AlveoleBoard } from "../board/alveole.js";
import { BoardGameScreen, BoardMenuScreen, BoardReplayScreen } from "./board_game.js";

export const GAME = "alveole";
const SPEC = { game: GAME, title: "Alveole", seats: ["black", "white"], stone: "stone" };

/** The result of a finished view: the winner and loser by `name(p)` and the reason, or the ply limit. */
function result(v, name) {
  if (v.truncated) return t("alveole.end.truncated", { n: v.ply });
  const w = v.winners[0];
  return t(`alveole.end.${v.end_reason}`, { name: name(w), loser: name(1 - w) });
}

/** The Alveole menu: who sits where, the ply limit and the AI speed; Play creates a room like Domain Wheel's. */
export class AlveoleMenuScreen extends BoardMenuScreen {
  static spec = SPEC;

  optionFields(game, saved) {
    const limit = game.options.find((o) => o.name === "max_plies");
    const pliesIn = el("input", { type: "number", min: limit.min, max: limit.max, step: 1, "data-testid": "opt-max_plies",
      value: saved.max_plies ?? limit.default });
    return {
      fields: [el("label", { class: "opt int" },
        el("span", { text: `${t("alveole.option.max_plies")} (${limit.min}–${limit.max})` }), pliesIn)],
      options: () => ({ max_plies: Number(pliesIn.value) }),
      remembered: () => ({ max_plies: Number(pliesIn.value) }),
    };
  }

  rules() {
    return ["move", "jump", "capture", "win", "stuck"];
  }
}

/** The Alveole game screen over a room connection (conn.select / conn.act / conn.onView, as in ui/game.js). */
export class AlveoleScreen extends BoardGameScreen {
  static spec = SPEC;

  makeBoard(root, layout, conn) {
    return new AlveoleBoard(root, layout, {
      label: t("alveole.board_label"),
      destinations: async (qr) => (await conn.select(qr)).destinations || [],
      onMove: (from, to) => conn.act({ action: "move", from, to }),
    });
  }

  cardStats(v, p) {
    return el("span", { class: "stats", "data-testid": `seat-stats-${p}`,
      text: t("alveole.stats", { pieces: v.pieces[p], groups: v.groups[p] }) });
  }

  logText(e) {
    return `${super.logText(e)}${e.capture ? ` (${t("alveole.capture")})` : ""}`;
  }

  result(v, name) {
    return result(v, name);
  }
}

/** An Alveole record in the replay viewer: the board after any ply, forward and back (buttons, slider, ← / →). */
export class AlveoleReplayScreen extends BoardReplayScreen {
  static spec = SPEC;

  makeBoard(root, layout) {
    return new AlveoleBoard(root, layout, { label: t("alveole.board_label"), destinations: async () => [], onMove: () => {} });
  }

  result(v, name) {
    return result(v, name);
  }
}
