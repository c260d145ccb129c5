// oware-zero's web app: play the network, study positions on a board of variations and
// notes, review a game, solve puzzles, watch training runs. Plain JavaScript modules, no dependencies, no build step; every
// rule is the server's (POST /api/v1/position), the page only draws and animates what
// the server says.
//
// This module starts the app: the tabs, the pits' clicks sent to the tab that is open,
// and the page's address, which holds the game (and the study) so that a link shares it.

import { api, engineModelName, setEngineModel } from './api.js';
import { buildBoard, drawEvalBar, setAnimation } from './board.js';
import { editPit, editing } from './editor.js';
import { initEnginePanel } from './engine-panel.js';
import { bindPlay, game, gameParams, initGame, initSettings, onPlayPit, showPlay } from './play.js';
import { bindPuzzles, onPuzzlePit, showPuzzles } from './puzzles.js';
import { bindStudy, hideStudy, initStudy, onStudyPit, showStudy, studyParams } from './study.js';
import { bindTraining, hideTraining, initTraining, showTraining, trainingParams } from './training.js';
import { $, START, activeTab, isFen, listen, say, setActiveTab } from './ui.js';

const TABS = ['play', 'analysis', 'puzzles', 'training'];

function updateUrl() {
  const q = new URLSearchParams();
  gameParams(q);
  studyParams(q);
  if (activeTab() === 'training') trainingParams(q);
  if (activeTab() !== 'play') q.set('tab', activeTab());
  if (engineModelName()) q.set('model', engineModelName());
  const anim = new URLSearchParams(location.search).get('anim');
  if (anim !== null) q.set('anim', anim);
  history.replaceState(null, '', '?' + q.toString());
}

async function showTab(tab) {
  hideStudy();
  hideTraining();
  setActiveTab(tab);
  // The training page takes the whole width: no board, no panel.
  document.body.classList.toggle('tab-training', tab === 'training');
  for (const b of document.querySelectorAll('.tab')) b.classList.toggle('active', b.dataset.tab === tab);
  for (const t of TABS) $('#pane-' + t).classList.toggle('hidden', t !== tab);
  drawEvalBar(null);
  updateUrl();
  if (tab === 'play') showPlay();
  else if (tab === 'analysis') await showStudy();
  else if (tab === 'puzzles') showPuzzles();
  else if (tab === 'training') await showTraining();
}

function onPit(letter) {
  if (editing()) return editPit(letter, 0);
  const tab = activeTab();
  if (tab === 'puzzles') return onPuzzlePit(letter);
  if (tab === 'analysis') return onStudyPit(letter);
  return onPlayPit(letter);
}

// A right click takes a seed away in the editor; on the study board it draws (the
// board's own handlers), so the menu stays shut.
function onRightPit(letter) {
  if (!editing()) return activeTab() === 'analysis';
  editPit(letter, -1);
  return true;
}

async function init() {
  setActiveTab('play', showTab);
  listen(updateUrl);
  buildBoard(onPit, onRightPit);
  bindPlay();
  bindStudy();
  bindPuzzles();
  bindTraining();
  for (const b of document.querySelectorAll('.tab')) b.addEventListener('click', () => showTab(b.dataset.tab));
  const q = new URLSearchParams(location.search);
  if (q.has('anim')) setAnimation(Math.max(0, Math.min(1000, Number(q.get('anim')) || 0)));
  let health = null;
  try {
    health = await api('health');
    setEngineModel(q.get('model'));
    const model = engineModelName() ? `checkpoint ${engineModelName()}` : health.model;
    $('#model').textContent = `${model} · ${health.rules} rules` +
      (health.tablebase ? ` · tables to ${health.tablebase.max_seeds} seeds` : '');
  } catch (e) {
    say('The server does not answer: ' + e.message, 'error');
  }
  initSettings(q, health);
  initEnginePanel(health);
  initTraining(q);
  // A start position that is not one makes the board empty: fall back to the start.
  let start = q.get('start') || START;
  if (!isFen(start)) start = START;
  let moves = q.get('moves') || '';
  // A study without the game: the game is the study's main line. A study the server
  // refuses leaves the game as the link gives it.
  const study = await initStudy(q, game().rules);
  if (study.start !== undefined && !q.has('moves')) [start, moves] = [study.start, study.moves];
  const tab = q.get('tab');
  await initGame(q, start, moves, !tab || tab === 'play');
  if (tab === 'analysis' || tab === 'puzzles' || tab === 'training') await showTab(tab);
  // Said last, so that the tab's own words do not hide it.
  if (study.error) {
    say(study.error, 'error');
    if (tab === 'analysis') $('#analysis-status').textContent = study.error;
  }
  document.body.dataset.ready = '1';
}

document.addEventListener('DOMContentLoaded', init);
