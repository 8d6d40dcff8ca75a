// The page of `goarena serve`: play a player, browse leagues, replay and watch their games.
// Every rule of Go is the server's: the page sends what the person does and draws what comes back.

import { Board, vertexName } from "./board.js";
import { lineChart } from "./chart.js";

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
  const post = { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(asked) };
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
  const players = info.players.map((p) => [p.name, p.name, p.spec]);
  fillSelect($("#player"), info.allow_spec ? [...players, [SPEC, "a spec…"]] : players);
  if (play.ready) return;
  play.ready = true;
  fillSelect($("#size"), info.sizes.map((size) => [String(size), `${size}×${size}`]), "9");
  fillSelect($("#rules"), info.rules.map((name) => [name, name]), "chinese");
  drawEmptyBoard();
}

function drawEmptyBoard() {
  const size = Number($("#size").value);
  play.board.draw({ board: new Array(size * size).fill(0) });
}

function newGame(event) {
  event.preventDefault();
  clearError();
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
  play.socket?.close(); // one game per connection: the old game ends with its socket
  const socket = new WebSocket(socketUrl("/ws/play"));
  Object.assign(play, { socket, state: null, analysis: null });
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
  if (message.type === "error") return showError(message.message);
  if (message.type === "state") play.state = message;
  else if (message.type === "analysis" && play.showAnalysis && play.state) {
    // About the position now on the board; kept in the panel once a move is played.
    play.analysis = { ...message, at: play.state.moves.length };
  }
  renderPlay();
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
  play.board.draw({
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
  if (play.showAnalysis) renderAnalysis(s, analysis, current);
}

function renderAnalysis(s, analysis, current) {
  // Black's win rate along the game, the live estimate of the current position last.
  const winrates = [...s.winrates];
  if ((current?.winrate ?? null) !== null) winrates[s.moves.length] = current.winrate;
  lineChart($("#winrate-graph"), {
    series: [{ name: "Black", color: "#222", values: winrates }],
    yMin: 0,
    yMax: 1,
    xMax: Math.max(s.moves.length, 10),
    percent: true,
    midline: 0.5,
  });
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
    ["#", "Player", "Games", "Won", "Lost", "Drawn", "Points", "Elo", "95% interval"],
    data.standings.map((s, i) => [
      String(i + 1),
      s.name,
      String(s.games),
      String(s.wins),
      String(s.losses),
      String(s.draws),
      String(s.points),
      number(s.elo),
      `${number(s.elo_low)} – ${number(s.elo_high)}`,
    ]),
  );
  standings.forEach((row, i) => {
    row.cells[1].title = data.standings[i].spec;
    row.dataset.player = data.standings[i].name;
  });

  const { names, cells } = data.crosstable;
  const cross = fillTable(
    $("#crosstable"),
    ["", ...names],
    names.map((name, i) => [name, ...cells[i].map((c, j) => (i === j ? "—" : c ? `${c.points} of ${c.games}` : ""))]),
  );
  cross.forEach((row) => row.cells[0].classList.add("name"));

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
    });
  } else {
    $("#elo-graph").textContent = "Ratings appear once games have been played.";
  }

  const games = [...data.games].sort((a, b) => b.id - a.id); // newest first: a watched league grows on top
  fillTable(
    $("#games"),
    ["Game", "Black", "White", "Result", "Reason", "Moves"],
    games.map((g) => [link(replayRoute(id, g.id), String(g.id)), g.black, g.white, g.result, g.reason, String(g.moves)]),
  ).forEach((row, i) => {
    row.dataset.game = games[i].id;
    row.addEventListener("click", () => (location.hash = replayRoute(id, games[i].id)));
  });
}

// -- replay -----------------------------------------------------------------------------------

const replay = { data: null, index: 0, board: new Board($("#replay-board")), winrates: null, id: "", game: 0 };

async function showReplay(id, game) {
  const here = visit;
  const [data, { players }] = await Promise.all([
    api(`${leagueUrl(id)}/games/${game}`),
    api("/api/players"), // the league's own players among them
  ]);
  if (here !== visit) return;
  Object.assign(replay, { data, id, game, index: 0, winrates: null });
  $("#replay-title").textContent = `Game ${game}: ${data.black} (Black) – ${data.white} (White)`;
  const how = data.reason ? `, ${data.reason}` : ""; // two passes, resign, move cap, ...
  const board = `${data.size}×${data.size}, komi ${data.komi}`;
  $("#replay-result").textContent = `${describeResult(data.result)} (${data.result}${how}) · ${board}`;
  $("#back-to-league").href = `#/league/${encodeId(id)}`;
  $("#move-slider").max = String(data.positions.length - 1);
  const readers = players.filter((p) => p.analysis).map((p) => [p.name, p.name, p.spec]);
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
  replay.board.draw({ board: position.board, last: move });
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
  if (!replay.winrates) return graph.replaceChildren();
  lineChart(graph, {
    series: [{ name: "Black", color: "#222", values: replay.winrates }],
    yMin: 0,
    yMax: 1,
    xMax: data.positions.length - 1,
    percent: true,
    midline: 0.5,
    cursor: index,
    onPick: step,
  });
}

async function chooseWinratePlayer() {
  const player = $("#winrate-player").value;
  const { id, game } = replay;
  replay.winrates = null;
  if (player) {
    $("#replay-winrate-graph").textContent = `${player} is reading the game…`;
    try {
      const { winrates } = await api(`${leagueUrl(id)}/games/${game}/analysis`, { player });
      if (replay.id !== id || replay.game !== game || $("#winrate-player").value !== player) return;
      replay.winrates = winrates;
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

$("#player").addEventListener("change", () => ($("#spec-label").hidden = $("#player").value !== SPEC));
$("#size").addEventListener("change", () => {
  $("#komi").value = $("#size").value === "9" ? "7" : "7.5"; // go_env.default_komi
  if (!play.state) drawEmptyBoard();
});
$("#new-game-form").addEventListener("submit", newGame);
$("#pass").addEventListener("click", () => send({ type: "pass" }));
$("#resign").addEventListener("click", () => send({ type: "resign" }));
$("#undo").addEventListener("click", () => send({ type: "undo" }));
$("#analysis-toggle").addEventListener("change", toggleAnalysis);

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
