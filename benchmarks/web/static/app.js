// The page of `goarena serve`: play a player, browse leagues, replay and watch their games.
// Every rule of Go is the server's: the page sends what the person does and draws what comes back.

import { Board, vertexName } from "./board.js";
import { lineChart } from "./chart.js";
import { QUALITY_NAMES, movesReviewed, qualityMap, smoothed } from "./review.js";

const $ = (selector) => document.querySelector(selector);
const SPEC = "\u0000spec"; // the player option that sends a spec of the person's own (--allow-spec)
const capitalize = (word) => word[0].toUpperCase() + word.slice(1);
const percent = (value) => `${(value * 100).toFixed(1)}%`;
/** A league id (a relative path) as one piece of a hash route. */
const encodeId = (id) => id.split("/").map(encodeURIComponent).join("/");
/** A league id in a server URL. The served folder itself ("."), as "./": the browser drops a "."
 *  segment from a URL's path, however it is escaped. */
const leaguePath = (id) => (id === "." ? ".%2F" : encodeId(id));
const leagueUrl = (id) => `/api/leagues/${leaguePath(id)}`;
const replayRoute = (id, game) => `#/replay/${encodeId(id)}/${game}`;
const KEPT_GAME = "goarena.game"; // the game in progress, kept over a reload (its settings and moves)
const OWN_RECORD = "goarena.sgf"; // the SGF record of the person's own being replayed

// -- errors and requests --------------------------------------------------------------------

function showError(message) {
  const box = $("#error");
  box.textContent = message;
  box.hidden = false;
}

function clearError() {
  $("#error").hidden = true;
}

/** A route's JSON answer; with `asked`, POSTed as JSON (what asks the server to work). */
async function api(path, asked) {
  // {raw: text}: an SGF record, sent as it is; anything else as JSON.
  const raw = asked?.raw !== undefined;
  const type = raw ? "application/x-go-sgf" : "application/json";
  const post = { method: "POST", headers: { "content-type": type }, body: raw ? asked.raw : JSON.stringify(asked) };
  const response = await fetch(path, asked === undefined ? {} : post);
  const answer = await response.json().catch(() => ({}));
  if (!response.ok) throw new Error(answer.error || `${response.status} ${response.statusText}`);
  return answer;
}

function socketUrl(path) {
  return `${location.protocol === "https:" ? "wss" : "ws"}://${location.host}${path}`;
}

/** A table's rows from cells (strings or nodes); the first row is the header. */
function fillTable(table, header, rows) {
  const head = document.createElement("tr");
  for (const cell of header) head.appendChild(document.createElement("th")).textContent = cell;
  table.replaceChildren(head);
  for (const cells of rows) {
    const row = table.appendChild(document.createElement("tr"));
    for (const cell of cells) row.appendChild(document.createElement("td")).append(cell ?? "");
  }
  return [...table.rows].slice(1);
}

function link(href, text) {
  const anchor = document.createElement("a");
  anchor.href = href;
  anchor.textContent = text;
  return anchor;
}

function describeResult(result) {
  if (!result) return "";
  if (result === "0" || result.toLowerCase() === "draw") return "A draw";
  const winner = result[0] === "B" ? "Black" : "White";
  const how = result.slice(2);
  const reasons = { R: "by resignation", T: "on time", F: "by forfeit" };
  return `${winner} wins ${reasons[how[0]] || `by ${how} points`}`;
}

/** Who counted a game that ended by moves: the judge of its dead stones, named with them. */
function countedBy(state) {
  if (state.counted_by === "the board as it stands") return "Counted as the board stands: every stone alive.";
  const dead = state.dead.length ? state.dead.join(" ") : "none";
  return `Dead stones, judged by ${state.counted_by}: ${dead}.`;
}

// -- routes -----------------------------------------------------------------------------------

const ROUTES = [
  [/^#\/play$/, "play", showPlay],
  [/^#\/leagues$/, "leagues", showLeagues],
  [/^#\/league\/(.+)$/, "league", (id) => showLeague(id, false)],
  [/^#\/watch\/(.+)$/, "league", (id) => showLeague(id, true)],
  [/^#\/replay\/(.+)\/(\d+)$/, "replay", (id, game) => showReplay(id, Number(game))],
  [/^#\/sgf$/, "replay", () => showOwnRecord()],
];
let page = null;
let visit = 0; // counts route changes: an answer that comes after the person moved on is dropped

function route() {
  visit++;
  clearError();
  stopWatching();
  const hash = location.hash || "#/play";
  for (const [pattern, name, show] of ROUTES) {
    const match = hash.match(pattern);
    if (!match) continue;
    page = name;
    for (const section of document.querySelectorAll(".page")) section.hidden = section.id !== `page-${name}`;
    for (const anchor of document.querySelectorAll("nav a"))
      anchor.classList.toggle("active", anchor.dataset.nav === (name === "play" ? "play" : "leagues"));
    show(...match.slice(1).map(decodeURIComponent)).catch((error) => showError(error.message));
    return;
  }
  location.hash = "#/play";
}

// -- play -------------------------------------------------------------------------------------

const play = {
  ready: false, // the form holds the server's sizes and rules
  socket: null,
  state: null,
  analysis: null,
  hint: null, // {move, at}: the best move of position `at`, asked for
  settings: null, // the "new" message of the game in play, without its moves
  kept: null, // what was kept of the game before a reload: its win rates and leads fill the gaps
  showAnalysis: true,
  board: new Board($("#play-board"), {
    onClick: (vertex) => play.state?.over === false && send({ type: "play", move: vertex }),
  }),
  policyBoard: new Board($("#policy-board"), { coordinates: false }),
};

/** A select's options from [value, text, title] triples, keeping its choice if it is still there. */
function fillSelect(select, values, chosen = select.value) {
  select.replaceChildren(...values.map(([value, text, title = ""]) => Object.assign(new Option(text, value), { title })));
  if (values.some(([value]) => value === chosen)) select.value = chosen;
}

async function showPlay() {
  // Asked each time: a league started since offers its players too.
  const info = await api("/api/players");
  play.strength = Object.fromEntries(info.players.map((p) => [p.name, p.strength]));
  const players = info.players.map((p) => [p.name, p.name, `${p.spec}: ${p.strength}`]);
  fillSelect($("#player"), info.allow_spec ? [...players, [SPEC, "a spec…"]] : players);
  showStrength();
  if (play.ready) return;
  play.ready = true;
  fillSelect($("#size"), info.sizes.map((size) => [String(size), `${size}×${size}`]), "9");
  fillSelect($("#rules"), info.rules.map((name) => [name, name]), "chinese");
  drawEmptyBoard();
  resumeKeptGame();
}

/** One line under the form on the chosen player's strength. */
function showStrength() {
  const name = $("#player").value;
  $("#player-strength").textContent = name === SPEC ? "" : `${name}: ${play.strength?.[name] ?? ""}`;
}

/** The game in progress before a reload, started again from its moves (the server replays them). */
function resumeKeptGame() {
  let kept = null;
  try {
    kept = JSON.parse(localStorage.getItem(KEPT_GAME) || "null");
  } catch {
    localStorage.removeItem(KEPT_GAME);
  }
  if (!kept?.settings || !Array.isArray(kept.moves) || play.socket) return;
  const { settings } = kept;
  if (settings.player !== undefined && ![...$("#player").options].some((o) => o.value === settings.player)) return;
  if (settings.player !== undefined) $("#player").value = settings.player;
  $("#size").value = String(settings.size);
  $("#komi").value = String(settings.komi);
  $("#rules").value = settings.rules;
  $("#color").value = settings.color;
  $("#handicap").value = String(settings.handicap);
  play.kept = kept;
  startGame(settings, kept.moves);
}

function drawEmptyBoard() {
  const size = Number($("#size").value);
  play.board.draw({ board: new Array(size * size).fill(0) });
}

function newGame(event) {
  event.preventDefault();
  clearError();
  play.kept = null;
  const message = {
    type: "new",
    size: Number($("#size").value),
    komi: Number($("#komi").value),
    rules: $("#rules").value,
    color: $("#color").value,
    handicap: Number($("#handicap").value),
  };
  if ($("#player").value === SPEC) message.spec = $("#spec").value;
  else message.player = $("#player").value;
  startGame(message, []);
}

/** A game on a connection of its own: `settings` (a "new" message), from `moves` already played. */
function startGame(settings, moves) {
  play.socket?.close(); // one game per connection: the old game ends with its socket
  const socket = new WebSocket(socketUrl("/ws/play"));
  Object.assign(play, { socket, state: null, analysis: null, hint: null, settings });
  const message = moves.length ? { ...settings, moves } : settings;
  socket.onopen = () => {
    socket.send(JSON.stringify(message));
    if (!play.showAnalysis) socket.send(JSON.stringify({ type: "analysis", on: false }));
  };
  socket.onmessage = (event) => socket === play.socket && receive(JSON.parse(event.data));
  socket.onclose = () => {
    if (socket !== play.socket) return;
    play.socket = null;
    if (!play.state?.over) showError("The connection to the server closed: start a new game.");
    renderPlay();
  };
}

function send(message) {
  if (play.socket?.readyState !== WebSocket.OPEN) return showError("Start a game first.");
  clearError();
  play.socket.send(JSON.stringify(message));
}

function receive(message) {
  if (message.type === "error") {
    if (play.kept && !play.state) {
      localStorage.removeItem(KEPT_GAME); // a kept game that cannot be resumed is let go
      play.kept = null;
    }
    return showError(message.message);
  }
  if (message.type === "state") {
    play.state = message;
    fillFromKept(message);
    keepGame(message);
  } else if (message.type === "analysis" && play.showAnalysis && play.state) {
    // About the position now on the board; kept in the panel once a move is played.
    play.analysis = { ...message, at: play.state.moves.length };
  } else if (message.type === "hint" && play.state) {
    play.hint = message;
  } else if (message.type === "sgf") {
    return download(message.sgf, message.name);
  }
  renderPlay();
}

/** The win rates and leads of a game resumed after a reload: the server's start empty. */
function fillFromKept(state) {
  const kept = play.kept;
  if (!kept) return;
  for (let i = 0; i < Math.min(state.moves.length, kept.moves.length); i++) {
    if (state.moves[i] !== kept.moves[i]) break;
    state.winrates[i] ??= kept.winrates?.[i] ?? null;
    state.scores[i] ??= kept.scores?.[i] ?? null;
  }
}

/** The game in play, kept in the browser until it is over, for a reload to resume it. */
function keepGame(state) {
  if (state.over) return localStorage.removeItem(KEPT_GAME);
  const { moves, winrates, scores } = state;
  localStorage.setItem(KEPT_GAME, JSON.stringify({ settings: play.settings, moves, winrates, scores }));
}

/** Save `text` as a file named `name` (the browser's download). */
function download(text, name) {
  const anchor = link(URL.createObjectURL(new Blob([text], { type: "application/x-go-sgf" })), name);
  anchor.download = name;
  document.body.appendChild(anchor);
  anchor.click();
  anchor.remove();
  setTimeout(() => URL.revokeObjectURL(anchor.href), 60_000);
}

function toggleAnalysis() {
  play.showAnalysis = $("#analysis-toggle").checked;
  if (!play.showAnalysis) play.analysis = null;
  if (play.socket?.readyState === WebSocket.OPEN) send({ type: "analysis", on: play.showAnalysis });
  renderPlay();
}

function renderPlay() {
  $("#analysis").hidden = !play.showAnalysis;
  const s = play.state;
  if (!s) return;
  const live = Boolean(play.socket) && !s.over;
  const humanTurn = live && !s.thinking && s.to_play === s.human;
  const analysis = play.showAnalysis && !s.over ? play.analysis : null;
  const current = analysis?.at === s.moves.length ? analysis : null; // drawn on the board
  const hint = humanTurn && play.hint?.at === s.moves.length ? play.hint.move : null;
  const reviewed = movesReviewed(s, current).filter((r) => r.mine);
  play.board.draw({
    quality: play.showAnalysis ? qualityMap(s.board, s.moves, reviewed) : null,
    hint,
    board: s.board,
    last: s.last,
    toPlay: s.to_play,
    legal: new Set(humanTurn ? s.legal : []),
    dead: new Set(s.over ? s.dead : []),
    owners: s.over ? s.owners : null,
    ownership: current?.ownership,
    candidates: current?.moves,
  });
  Object.assign($("#play-board").dataset, {
    moves: s.moves.join(" "),
    over: s.over,
    turn: humanTurn ? "human" : s.over ? "over" : "agent",
    analysisAt: current ? String(current.at) : "",
    analysisVisits: current ? String(current.visits) : "",
    pondering: String(Boolean(current?.ponder)),
  });

  $("#turn").textContent = s.over
    ? "Game over."
    : s.thinking
      ? `${s.player} is thinking…`
      : humanTurn
        ? `Your move (${capitalize(s.human)}).`
        : `${capitalize(s.to_play)} to play.`;
  $("#captures").textContent =
    `Move ${s.moves.length} · komi ${s.komi} · captured by Black ${s.captures.black}, by White ${s.captures.white}`;
  const result = $("#result");
  result.hidden = !s.over;
  result.dataset.result = s.result ?? "";
  result.dataset.countedBy = s.counted_by ?? "";
  result.replaceChildren();
  if (s.over && s.result === null) result.textContent = "Counting the score…";
  else if (s.over) {
    result.textContent = `${describeResult(s.result)} (${s.result}). `;
    if (s.counted_by) result.appendChild(document.createElement("span")).textContent = countedBy(s);
  }
  $("#pass").disabled = !humanTurn;
  $("#resign").disabled = !live;
  $("#undo").disabled = !play.socket || s.thinking || s.moves.length === 0;
  $("#hint").disabled = !humanTurn;
  $("#save-sgf").disabled = !play.socket;
  if (play.showAnalysis) renderAnalysis(s, analysis, current, reviewed);
}

function renderAnalysis(s, analysis, current, reviewed) {
  // Black's win rate and lead along the game, the live estimates of the current position last.
  const winrates = [...s.winrates];
  const scores = [...s.scores];
  if ((current?.winrate ?? null) !== null) winrates[s.moves.length] = current.winrate;
  if ((current?.score_lead ?? null) !== null) scores[s.moves.length] = current.score_lead;
  const xMax = Math.max(s.moves.length, 10);
  lineChart($("#winrate-graph"), {
    series: [{ name: "Black", color: "#222", values: winrates }],
    yMin: 0,
    yMax: 1,
    xMax,
    percent: true,
    midline: 0.5,
  });
  const counted = scores.some((value) => value !== null && value !== undefined);
  $("#score-panel").hidden = !counted;
  if (counted) lineChart($("#score-graph"), { series: [{ name: "Black", color: "#222", values: scores }], xMax, midline: 0 });
  renderReview(reviewed);
  const summary = $("#analysis-summary");
  summary.dataset.visits = current ? String(current.visits) : "";
  summary.textContent = "";
  if (analysis) {
    const what = analysis.winrate === null
      ? "its network's policy (no search)"
      : `${analysis.visits} visits · Black's win rate ${percent(analysis.winrate)}`;
    summary.textContent = current ? capitalize(what) : `Before move ${analysis.at + 1}: ${what}`;
  }
  const moves = (analysis?.moves || []).slice(0, 8);
  const leads = moves.some((m) => (m.score_lead ?? null) !== null); // only players that count points
  const columns = [
    ["Move", (m) => m.move],
    ["Visits", (m) => String(m.visits)],
    ["Win rate", (m) => (m.visits ? percent(m.winrate) : "")],
    ["Prior", (m) => percent(m.prior)],
    ...(leads ? [["Lead", (m) => m.score_lead?.toFixed(1) ?? ""]] : []),
    ["Principal variation", (m) => m.pv.slice(0, 8).join(" ")],
  ];
  fillTable(
    $("#candidates"),
    moves.length ? columns.map(([name]) => name) : [],
    moves.map((m) => columns.map(([, cell]) => cell(m))),
  );
  const policy = current?.policy;
  $("#policy-panel").hidden = !policy;
  if (policy) play.policyBoard.draw({ board: s.board, policy, last: s.last });
}

/** The person's moves with what each cost, worst colours first to catch the eye. */
function renderReview(reviewed) {
  const mine = reviewed.filter((r) => r.mine && r.quality !== null);
  $("#review-panel").hidden = mine.length === 0;
  const signed = (value, digits, unit = "") =>
    value === null ? "" : `${value > 0 ? "−" : "+"}${Math.abs(value).toFixed(digits)}${unit}`;
  const rows = fillTable(
    $("#review"),
    ["Move", "Point", "Win rate", "Points", "Quality"],
    [...mine].reverse().map((r) => [
      String(r.index + 1),
      r.move,
      signed(r.winrateLoss === null ? null : r.winrateLoss * 100, 1, "%"),
      signed(r.scoreLoss, 1),
      QUALITY_NAMES[r.quality],
    ]),
  );
  [...mine].reverse().forEach((r, i) => {
    rows[i].classList.add(`quality-${r.quality}`);
    rows[i].dataset.quality = String(r.quality);
    rows[i].dataset.move = String(r.index + 1);
  });
}

// -- leagues ----------------------------------------------------------------------------------

async function showLeagues() {
  const here = visit;
  const { leagues } = await api("/api/leagues");
  if (here !== visit) return;
  $("#no-leagues").hidden = leagues.length > 0;
  const rows = leagues.map((league) => [
    link(`#/league/${encodeId(league.id)}`, league.id),
    String(league.games),
    league.players.join(", "),
    new Date(league.updated * 1000).toLocaleString(),
    link(`#/watch/${encodeId(league.id)}`, "watch"),
  ]);
  const header = leagues.length ? ["League", "Games", "Players", "Updated", ""] : [];
  fillTable($("#leagues"), header, rows).forEach((row, i) => (row.dataset.league = leagues[i].id));
}

let watchSocket = null;
const liveBoards = new Map(); // game id -> {figure, board, caption}: the games in progress shown

function stopWatching() {
  watchSocket?.close();
  watchSocket = null;
  $("#live").hidden = true;
  liveBoards.clear();
  $("#live-games").replaceChildren();
  $("#live-games").hidden = true;
  $("#watch-note").textContent = "Games in progress are shown here as they are played.";
}

/** The games in progress, each on a small board of its own, kept from message to message. */
function renderLive(games) {
  const playing = new Set(games.map((game) => game.id));
  for (const id of liveBoards.keys()) if (!playing.has(id)) liveBoards.delete(id);
  for (const game of games) {
    if (!liveBoards.has(game.id)) {
      const figure = document.createElement("figure");
      figure.className = "live-game";
      figure.dataset.game = game.id;
      const board = new Board(figure, { coordinates: false });
      liveBoards.set(game.id, { figure, board, caption: figure.appendChild(document.createElement("figcaption")) });
    }
    const shown = liveBoards.get(game.id);
    shown.board.draw({ board: game.board, last: game.last });
    shown.figure.dataset.moves = String(game.moves.length);
    shown.caption.textContent =
      `Game ${game.id}: ${game.black} (B) vs ${game.white} (W) · move ${game.moves.length}, ${game.to_play} to play`;
  }
  const box = $("#live-games");
  box.replaceChildren(...games.map((game) => liveBoards.get(game.id).figure));
  box.hidden = games.length === 0;
  $("#watch-note").textContent = games.length
    ? `${games.length} game${games.length > 1 ? "s" : ""} in progress, shown as played; each joins the table when it finishes.`
    : "No game in progress: games show here as they are played, and in the table once finished.";
}

async function showLeague(id, live) {
  const here = visit;
  $("#league-title").textContent = id;
  const watch = $("#watch-link");
  watch.href = live ? `#/league/${encodeId(id)}` : `#/watch/${encodeId(id)}`;
  watch.textContent = live ? "Stop watching" : "Watch it live";
  $("#watch-note").hidden = !live;
  const data = await api(leagueUrl(id));
  if (here !== visit) return;
  renderLeague(id, data);
  if (!live) return;
  const socket = new WebSocket(socketUrl(`/ws/watch/${leaguePath(id)}`));
  watchSocket = socket;
  socket.onopen = () => ($("#live").hidden = false);
  socket.onmessage = (event) => {
    const message = JSON.parse(event.data);
    if (message.type === "table") return renderLeague(id, message);
    if (message.type === "live") return renderLive(message.games);
    if (message.type !== "error") return;
    showError(message.message);
    watchSocket = null; // the server closes it: its error says why
  };
  socket.onclose = () => {
    if (socket === watchSocket) showError("The live view closed: reload to watch again.");
    $("#live").hidden = true;
  };
}

function renderLeague(id, data) {
  const played = data.scheduled ? `${data.games.length} of ${data.scheduled}` : data.games.length;
  $("#league-progress").textContent = `${played} games played.`;
  const number = (value, digits = 0) => (value === null || value === undefined ? "–" : value.toFixed(digits));
  const standings = fillTable(
    $("#standings"),
    ["#", "Player", "Games", "Won", "Lost", "Drawn", "Points", "Elo", "95% CI"],
    data.standings.map((s, i) => [
      String(i + 1),
      s.name,
      String(s.games),
      String(s.wins),
      String(s.losses),
      String(s.draws),
      String(s.points),
      number(s.elo),
      s.name === data.anchor ? "anchor" : `${number(s.elo_low)} – ${number(s.elo_high)}`,
    ]),
  );
  standings.forEach((row, i) => {
    row.cells[1].title = data.standings[i].spec;
    row.dataset.player = data.standings[i].name;
  });

  const { names, cells } = data.crosstable;
  // Columns by the players' ranks (named on hover), so that a league of ten fits its column.
  const cross = fillTable(
    $("#crosstable"),
    ["", ...names.map((_, j) => String(j + 1))],
    names.map((name, i) => [
      `${i + 1} ${name}`,
      ...cells[i].map((c, j) => (i === j ? "—" : c ? `${c.points}/${c.games}` : "")),
    ]),
  );
  cross.forEach((row) => row.cells[0].classList.add("name"));
  [...$("#crosstable").rows[0].cells].slice(1).forEach((cell, j) => (cell.title = names[j]));

  const players = data.standings.map((s) => s.name);
  const history = data.elo_history;
  if (history.length) {
    lineChart($("#elo-graph"), {
      series: players.map((name) => ({
        name,
        xs: history.map((h) => h.game),
        values: history.map((h) => h.ratings[name] ?? null),
      })),
      xMax: history[history.length - 1].game,
      legend: true,
      unit: "",
    });
  } else {
    $("#elo-graph").textContent = "Ratings appear once games have been played.";
  }

  const games = [...data.games].sort((a, b) => b.id - a.id); // newest first: a watched league grows on top
  fillTable(
    $("#games"),
    ["Game", "Black", "White", "Result", "Reason", "Moves"],
    games.map((g) => [
      link(replayRoute(id, g.id), String(g.id)),
      g.black,
      g.white,
      g.winner === "draw" || g.result === "0" ? "Draw" : g.result,
      g.reason,
      String(g.moves),
    ]),
  ).forEach((row, i) => {
    row.dataset.game = games[i].id;
    row.addEventListener("click", () => (location.hash = replayRoute(id, games[i].id)));
  });
}

// -- replay -----------------------------------------------------------------------------------

// source: where the game comes from, {league: id, game: n} or {sgf: text} (a record of the person's own)
const replay = { data: null, index: 0, board: new Board($("#replay-board")), winrates: null, scores: null, source: null };
let ownRecordUrl = null; // the object URL the replay page links a record of the person's own by

async function showReplay(id, game) {
  const here = visit;
  const [data, { players }] = await Promise.all([
    api(`${leagueUrl(id)}/games/${game}`),
    api("/api/players"), // the league's own players among them
  ]);
  if (here !== visit) return;
  showRecord(data, players, { league: id, game }, `Game ${game}`);
  $("#back-to-league").hidden = false;
  $("#back-to-league").href = `#/league/${encodeId(id)}`;
  $("#replay-sgf").href = `${leagueUrl(id)}/games/${game}/sgf`;
}

/** A record of the person's own, opened from a file (kept in the tab over a reload). */
async function showOwnRecord() {
  const here = visit;
  const sgf = sessionStorage.getItem(OWN_RECORD);
  if (sgf === null) {
    location.hash = "#/leagues";
    throw new Error("No SGF record open: open one with “Open SGF…”.");
  }
  const [data, { players }] = await Promise.all([
    api("/api/sgf", { raw: sgf }),
    api("/api/players"),
  ]);
  if (here !== visit) return;
  showRecord(data, players, { sgf }, "Your record");
  $("#back-to-league").hidden = true;
  if (ownRecordUrl) URL.revokeObjectURL(ownRecordUrl);
  ownRecordUrl = URL.createObjectURL(new Blob([sgf], { type: "application/x-go-sgf" }));
  $("#replay-sgf").href = ownRecordUrl;
}

/** Read the file chosen with "Open SGF…" and replay it (the server reads it, as untrusted data). */
async function openRecord(event) {
  const file = event.target.files[0];
  event.target.value = ""; // the same file may be opened again
  if (!file) return;
  clearError();
  try {
    if (file.size > 256 * 1024) throw new Error(`${file.name} is larger than 256 kB: no game record is`);
    const sgf = await file.text();
    await api("/api/sgf", { raw: sgf }); // refused here with its reason, before the page changes
    sessionStorage.setItem(OWN_RECORD, sgf);
    if (location.hash === "#/sgf") route();
    else location.hash = "#/sgf";
  } catch (error) {
    showError(`${file.name}: ${error.message}`);
  }
}

function showRecord(data, players, source, title) {
  Object.assign(replay, { data, source, index: 0, winrates: null, scores: null });
  const black = data.black || "Black";
  const white = data.white || "White";
  $("#replay-title").textContent = `${title}: ${black} (Black) – ${white} (White)`;
  const how = data.reason ? `, ${data.reason}` : ""; // two passes, resign, move cap, ...
  const board = `${data.size}×${data.size}, komi ${data.komi}`;
  const result = data.result ? `${describeResult(data.result)} (${data.result}${how}) · ` : "";
  $("#replay-result").textContent = `${result}${board}`;
  $("#move-slider").max = String(data.positions.length - 1);
  // One reader per name: a league's player named as one of the server's is left out here.
  const names = new Set(players.map((p) => p.name));
  const readers = players
    .filter((p) => p.analysis && !(p.name.endsWith(")") && names.has(p.name.replace(/ \(.*\)$/, ""))))
    .map((p) => [p.name, p.name, p.spec]);
  fillSelect($("#winrate-player"), [["", "(none)"], ...readers], "");
  renderReplay();
}

function step(to) {
  if (!replay.data) return;
  replay.index = Math.min(Math.max(to, 0), replay.data.positions.length - 1);
  renderReplay();
}

function renderReplay() {
  const { data, index } = replay;
  const position = data.positions[index];
  const move = position.move === null ? null : vertexName(position.move, data.size);
  const played = data.positions.slice(1, index + 1).map((p) => vertexName(p.move, data.size));
  const reviewed = replayReviewed().slice(0, index);
  replay.board.draw({ board: position.board, last: move, quality: qualityMap(position.board, played, reviewed) });
  const cost = $("#move-cost");
  const judged = index > 0 ? reviewed[index - 1] : null;
  cost.className = judged?.quality != null ? `quality-${judged.quality}` : "";
  cost.dataset.quality = judged?.quality != null ? String(judged.quality) : "";
  cost.textContent = judged?.quality != null ? moveCost(judged) : "";
  const number = $("#move-number");
  number.dataset.index = String(index);
  const moves = data.positions.length - 1;
  const color = position.color === 1 ? "Black" : "White";
  number.textContent = index === 0 ? `Start (${moves} moves)` : `Move ${index} of ${moves}: ${color} ${move}`;
  const [black, white] = position.captures;
  $("#replay-captures").textContent = `Captured by Black ${black}, by White ${white}`;
  $("#comment").textContent = position.comment || "";
  $("#move-slider").value = String(index);
  const graph = $("#replay-winrate-graph");
  const scores = replay.scores?.some((value) => value !== null) ? replay.scores : null;
  $("#replay-score-panel").hidden = !scores;
  if (!replay.winrates) return graph.replaceChildren();
  // The line: each position's win rate with its neighbours (¼, ½, ¼), which cancels the swing of
  // a network that favours the side to move; the dots: each position as the player read it.
  const reader = $("#winrate-player").value;
  lineChart(graph, {
    series: [
      { name: `Black's win rate by ${reader}, smoothed over neighbouring moves`, color: "#222", values: smoothed(replay.winrates) },
      { name: "each position as read", color: "#222", values: replay.winrates, dots: true, faint: true },
    ],
    yMin: 0,
    yMax: 1,
    xMax: data.positions.length - 1,
    percent: true,
    midline: 0.5,
    cursor: index,
    legend: true,
    onPick: step,
  });
  if (scores)
    lineChart($("#replay-score-graph"), {
      series: [{ name: `Black's lead by ${reader}`, color: "#222", values: scores }],
      xMax: data.positions.length - 1,
      midline: 0,
      cursor: index,
      onPick: step,
    });
}

/** Every move of the replay with what it cost its player by the chosen reader (none: []). */
function replayReviewed() {
  const { data, winrates, scores } = replay;
  if (!winrates) return [];
  const moves = data.positions.slice(1).map((p) => vertexName(p.move, data.size));
  const colors = data.positions.slice(1).map((p) => (p.color === 1 ? "black" : "white"));
  // By the smoothed line the page draws: a reader that favours the side to move would call every
  // other move a blunder by its raw values.
  const reading = { winrates: smoothed(winrates), scores: smoothed(scores || []) };
  return movesReviewed({ moves, colors, ...reading, human: null }, null);
}

function moveCost(judged) {
  const parts = [];
  const said = (loss, unit) => `${loss < 0 ? "gained" : "cost"} ${Math.abs(loss).toFixed(1)}${unit}`;
  if (judged.winrateLoss !== null) parts.push(said(judged.winrateLoss * 100, "% of win rate"));
  if (judged.scoreLoss !== null) parts.push(said(judged.scoreLoss, " points"));
  return `This move ${parts.join(", ")} (${QUALITY_NAMES[judged.quality]}).`;
}

async function chooseWinratePlayer(event) {
  event.target.blur(); // the arrow keys move through the game again, not through the list
  const player = $("#winrate-player").value;
  const { source } = replay;
  Object.assign(replay, { winrates: null, scores: null });
  if (player) {
    $("#replay-winrate-graph").textContent = `${player} is reading the game…`;
    try {
      const { winrates, scores } = source.sgf !== undefined
        ? await api("/api/sgf/analysis", { player, sgf: source.sgf })
        : await api(`${leagueUrl(source.league)}/games/${source.game}/analysis`, { player });
      if (replay.source !== source || $("#winrate-player").value !== player) return;
      Object.assign(replay, { winrates, scores });
    } catch (error) {
      showError(error.message);
    }
  }
  renderReplay();
}

function replayKeys(event) {
  if (page !== "replay" || event.altKey || event.ctrlKey || event.metaKey) return;
  if (event.target.matches("input, select, textarea")) return; // the slider and the selector have keys of their own
  const moves = { ArrowLeft: -1, ArrowRight: 1 };
  if (event.key in moves) step(replay.index + moves[event.key]);
  else if (event.key === "Home") step(0);
  else if (event.key === "End") step(Infinity);
  else return;
  event.preventDefault();
}

// -- start ------------------------------------------------------------------------------------

$("#player").addEventListener("change", () => {
  $("#spec-label").hidden = $("#player").value !== SPEC;
  showStrength();
});
$("#size").addEventListener("change", () => {
  $("#komi").value = $("#size").value === "9" ? "7" : "7.5"; // go_env.default_komi
  if (!play.state) drawEmptyBoard();
});
$("#new-game-form").addEventListener("submit", newGame);
$("#pass").addEventListener("click", () => send({ type: "pass" }));
$("#resign").addEventListener("click", () => send({ type: "resign" }));
$("#undo").addEventListener("click", () => send({ type: "undo" }));
$("#hint").addEventListener("click", () => send({ type: "hint" }));
$("#save-sgf").addEventListener("click", () => send({ type: "sgf" }));
$("#open-sgf").addEventListener("change", openRecord);
$("#analysis-toggle").addEventListener("change", toggleAnalysis);
$(".quality-key").replaceChildren(
  ...QUALITY_NAMES.map((name, quality) => {
    const key = document.createElement("span");
    key.className = `quality-${quality}`;
    key.textContent = name;
    return key;
  }),
);

$("#first").addEventListener("click", () => step(0));
$("#prev").addEventListener("click", () => step(replay.index - 1));
$("#next").addEventListener("click", () => step(replay.index + 1));
$("#last").addEventListener("click", () => step(Infinity));
$("#move-slider").addEventListener("input", (event) => step(Number(event.target.value)));
$("#winrate-player").addEventListener("change", chooseWinratePlayer);
$("#error").addEventListener("click", clearError);
document.addEventListener("keydown", replayKeys);
window.addEventListener("hashchange", route);
route();
