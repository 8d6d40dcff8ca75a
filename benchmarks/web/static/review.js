// Review: what each move cost its player, by the player's reading of the position before it
// and after it, in KaTrain's six colours of move quality.

import { pointOf } from "./board.js";

// KaTrain's thresholds (points lost: 0.5, 1.5, 3, 6, 12) and its colours, best to worst.
export const POINT_STEPS = [0.5, 1.5, 3, 6, 12];
// Where the player counts no points, the win rate lost (0.01 = one percentage point).
export const WINRATE_STEPS = [0.01, 0.025, 0.05, 0.1, 0.2];
export const QUALITY_NAMES = ["excellent", "good", "inaccuracy", "mistake", "blunder", "big blunder"];

/** 0 (best) .. 5 (worst): how many of `steps` the loss reaches. */
function grade(loss, steps) {
  return steps.filter((step) => loss >= step).length;
}

/**
 * Each move of a game with what it cost its player.
 * @param {{moves: string[], winrates: (number|null)[], scores: (number|null)[], human: string|null,
 *          first?: string, colors?: string[]}} game Black's win rate and lead at each
 *   position (index i: before move i); the colour of each move from `colors`, else alternating
 *   from `first`.
 * @param {{winrate: number|null, score_lead: number|null}|null} current the estimates of the
 *   position after the last move, when they are not in the game's lists yet
 * @returns {{index, move, color, mine, winrateLoss, scoreLoss, quality}[]} one per move; a loss is
 *   null where an estimate is missing, quality null where both are.
 */
export function movesReviewed(game, current) {
  const { moves, winrates, scores, human } = game;
  const other = (color) => (color === "black" ? "white" : "black");
  const known = (value) => value !== null && value !== undefined;
  return moves.map((move, index) => {
    const color = game.colors ? game.colors[index] : index % 2 === 0 ? game.first : other(game.first);
    const last = index === moves.length - 1;
    const after = (list, field) => (index + 1 < list.length ? list[index + 1] : last ? current?.[field] : null);
    const sign = color === "black" ? 1 : -1;
    const loss = (before, later) => (known(before) && known(later) ? sign * (before - later) : null);
    const winrateLoss = loss(winrates[index], after(winrates, "winrate"));
    const scoreLoss = loss(scores[index], after(scores, "score_lead"));
    const quality = scoreLoss !== null
      ? grade(scoreLoss, POINT_STEPS)
      : winrateLoss !== null
        ? grade(winrateLoss, WINRATE_STEPS)
        : null;
    return { index, move, color, mine: human === null || color === human, winrateLoss, scoreLoss, quality };
  });
}

/** Vertex -> quality of the moves whose stones are still on `board` (the latest move there),
 *  the person's only where `reviewed` tells whose they are. */
export function qualityMap(board, moves, reviewed) {
  const size = Math.round(Math.sqrt(board.length));
  const found = new Map();
  for (const r of reviewed) {
    if (!r.mine || r.quality === null || r.move === "pass" || r.index >= moves.length) continue;
    const stone = board[pointOf(r.move, size)];
    if (stone === (r.color === "black" ? 1 : 2)) found.set(r.move, r.quality);
    else found.delete(r.move);
  }
  return found;
}

/** Values smoothed over their neighbours (weights ¼, ½, ¼ of the known ones): a swing from one
 *  move to the next (a network that favours the side to move) cancels, a trend stays. */
export function smoothed(values) {
  const known = (value) => value !== null && value !== undefined;
  return values.map((value, i) => {
    if (!known(value)) return null;
    let sum = 2 * value;
    let weight = 2;
    for (const j of [i - 1, i + 1])
      if (known(values[j])) {
        sum += values[j];
        weight += 1;
      }
    return sum / weight;
  });
}
