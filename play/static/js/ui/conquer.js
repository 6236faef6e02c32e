// The Conquer screens: its menu (seats, names, board size, scoring method, start, AI speed) and its game screen
// (the dot grid, seat cards with the score by both methods, turn banner, pass button, log, the end with its reason).
// The room, seats, tokens and AI turns are the play server's, exactly as for the other games; the menu, screen and
// replay plumbing every board game shares are ui/board_game.js's: only the board, the options, the pass, the scores
// and the texts are Conquer's.

import { t, aiName } from "../i18n.js";
import { el } from "./hud.js";
import { ConquerBoard } from "../board/conquer.js";
import { BoardGameScreen, BoardMenuScreen, BoardReplayScreen, optionLabel } from "./board_game.js";

export const GAME = "conquer";
const SPEC = { game: GAME, title: "Conquer", seats: ["red", "blue"], stone: "cq-stone" };
// the spec's three presets (rule 2.1, A1: any W, H in 2..64 plays) and Go's 19 x 19, between 15 x 15 and the sheet
const SIZES = [[9, 9], [15, 15], [19, 19], [39, 32]];
const OWN_AIS = ["random", "heuristic"];

/** The result of a finished view: how it ended, then the winner and the score by the room's method (or a draw). */
function result(v, name) {
  if (v.truncated) return t("conquer.end.truncated", { n: v.ply });
  const s = v.scores[v.scoring];
  const how = t(`conquer.end.${v.end_reason}`);
  if (!v.winners.length) return `${how} ${t("conquer.end.draw", { a: s[0], b: s[1] })}`;
  const w = v.winners[0];
  return `${how} ${t("conquer.end.winner", { name: name(w), a: s[w], b: s[1 - w], method: t(`conquer.scoring.${v.scoring}`) })}`;
}

/** The Conquer menu: who sits where, the board, the scoring and the AI speed; Play creates a room. */
export class ConquerMenuScreen extends BoardMenuScreen {
  static spec = SPEC;

  optionFields(_game, saved) {
    const select = (testid, label, values, text, value) => {
      const sel = el("select", { "data-testid": testid, "aria-label": label },
        ...values.map((x) => el("option", { value: x, text: text(x) })));
      sel.value = value;
      return sel;
    };
    const sizeSel = select("conquer-size", t("conquer.option.size"), SIZES.map(([w, h]) => `${w}x${h}`),
      (x) => x.replace("x", " × "), saved.size || "15x15");
    const scoringSel = select("conquer-scoring", t("conquer.option.scoring"), ["dots", "territory"],
      (m) => t(`conquer.scoring.${m}`), saved.scoring || "dots");
    const startSel = select("conquer-start", t("conquer.option.start"), ["empty", "cross"],
      (s) => t(`conquer.start.${s}`), saved.start || "empty");
    return {
      fields: [optionLabel(t("conquer.option.size"), sizeSel), optionLabel(t("conquer.option.scoring"), scoringSel),
        optionLabel(t("conquer.option.start"), startSel)],
      options: () => {
        const [width, height] = sizeSel.value.split("x").map(Number);
        return { width, height, scoring: scoringSel.value, start: startSel.value };
      },
      remembered: () => ({ size: sizeSel.value, scoring: scoringSel.value, start: startSel.value }),
    };
  }

  rules() {
    return ["place", "ring", "territory", "bases", "rescue", "end"];
  }
}

/** The Conquer game screen over a room connection (conn.act / conn.onView, as in ui/game.js). */
export class ConquerScreen extends BoardGameScreen {
  static spec = SPEC;

  makeBoard(root, layout, conn) {
    return new ConquerBoard(root, layout, {
      label: t("conquer.board_label"),
      // the generic conn.act sends the action as the message type: a placement is a move from a point to itself
      onPlace: (xy) => conn.act({ action: "move", from: xy, to: xy }),
    });
  }

  controls() {
    this.passBtn = el("button", { type: "button", "data-testid": "pass", onclick: () => this.opts.conn.act({ action: "pass" }) },
      t("conquer.pass"));
    return [this.passBtn];
  }

  panels() {
    this.scoringEl = el("p", { class: "muted", "data-testid": "scoring-method" });
    return [this.scoringEl];
  }

  updateControls(v) {
    this.passBtn.disabled = !(this.seat !== null && v.turn === this.seat && !v.over);
    this.scoringEl.textContent = t("conquer.scoring_note", { method: t(`conquer.scoring.${v.scoring}`) });
  }

  aiLabel(player) {
    return OWN_AIS.includes(player.ai) ? t(`conquer.ai.${player.ai}`) : aiName(player.ai, player.aiName);
  }

  cardStats(v, p) {
    const score = (method) => el("span", { class: v.scoring === method ? "primary" : "",
      "data-testid": `score-${method}-${p}`, "data-value": v.scores[method][p],
      text: t(`conquer.score.${method}`, { n: v.scores[method][p] }) });
    return el("span", { class: "scores" }, score("dots"), " · ", score("territory"));
  }

  turnBanner(v) {
    if (v.turn === this.seat) return v.passes ? t("conquer.banner.after_pass") : t("banner.your_turn");
    return super.turnBanner(v);
  }

  logText(e) {
    const who = this._name(e.seat);
    if (e.action === "pass") return t("conquer.log.pass", { who });
    const ev = (e.events || []).find((x) => x.type === "capture" || x.type === "base");
    const base = t("conquer.log.place", { who, x: e.point[0], y: e.point[1] });
    if (!ev) return base;
    const key = ev.type === "capture" ? (ev.rescued ? "conquer.log.capture_rescue" : "conquer.log.capture") : "conquer.log.base";
    return `${base} — ${t(key, { dead: ev.dead, sealed: ev.sealed, rescued: ev.rescued, name: this._name(ev.player) })}`;
  }

  result(v, name) {
    return result(v, name);
  }
}

/** A Conquer record in the replay viewer: the board after any ply, forward and back (buttons, slider, ← / →). */
export class ConquerReplayScreen extends BoardReplayScreen {
  static spec = SPEC;

  aiName(id) {
    return OWN_AIS.includes(id) ? t(`conquer.ai.${id}`) : id;
  }

  makeBoard(root, layout) {
    return new ConquerBoard(root, layout, { label: t("conquer.board_label"), onPlace: () => {} });
  }

  panels() {
    this.scoresEl = el("p", { class: "muted", "data-testid": "replay-scores" });
    return [this.scoresEl];
  }

  updatePanels(v, name) {
    this.scoresEl.textContent = [0, 1].map((p) => `${name(p)}: ${t("conquer.score.dots", { n: v.scores.dots[p] })} · `
      + `${t("conquer.score.territory", { n: v.scores.territory[p] })}`).join(" — ");
  }

  logText(e, name) {
    return e.action === "pass" ? t("conquer.log.pass", { who: name(e.seat) })
      : t("conquer.log.place", { who: name(e.seat), x: e.point[0], y: e.point[1] });
  }

  result(v, name) {
    return result(v, name);
  }
}
