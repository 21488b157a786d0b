// Status page of the sample: every second, reads the leader endpoint and the latest job
// runs of the node that serves it. Plain JavaScript, no build step. While the database does
// not answer, the endpoint still answers within the statement timeout with this node's last
// view ("stale"), and the page says how long the database has been unreachable.
'use strict';

const election = new URLSearchParams(location.search).get('election') || 'default';
const endpoint = 'actuator/leader/' + encodeURIComponent(election);
let nodeId = null;

function text(id, value) {
  document.getElementById(id).textContent = value;
}

// Clock time with milliseconds, in the browser's time zone.
function time(iso) {
  if (!iso) return '—';
  const date = new Date(iso);
  return date.toLocaleTimeString('en-GB', { hour12: false }) + '.' + String(date.getMilliseconds()).padStart(3, '0');
}

// Distance from the database clock, not the browser's: every time shown was written by
// the database, and the browser's clock may be off by seconds.
function relative(iso, databaseTime) {
  if (!iso || !databaseTime) return '';
  const seconds = (new Date(iso) - new Date(databaseTime)) / 1000;
  if (Math.abs(seconds) < 0.05) return 'now';
  return seconds > 0 ? 'in ' + seconds.toFixed(1) + ' s' : Math.abs(seconds).toFixed(1) + ' s ago';
}

// Seconds of an ISO-8601 duration as the actuator writes them, e.g. PT4.2S or PT1M3.5S.
function seconds(duration) {
  const match = /^PT(?:(\d+)H)?(?:(\d+)M)?(?:([\d.]+)S)?$/.exec(duration || '');
  if (!match) return null;
  return (Number(match[1] || 0) * 60 + Number(match[2] || 0)) * 60 + Number(match[3] || 0);
}

// The database clock now, estimated from the endpoint's answer: when the lease shown was read
// (database clock) plus how long ago that was (this node's clock). Null if never read.
function databaseNow(state) {
  const age = seconds(state.leaseAge);
  if (!state.leaseSeenAt || age === null) return null;
  return new Date(new Date(state.leaseSeenAt).getTime() + age * 1000).toISOString();
}

function capitalized(message) {
  return message.charAt(0).toUpperCase() + message.slice(1);
}

// What the page says about the database: nothing while it answers; otherwise for how long
// it has been unreachable and what this node last saw.
function databaseNotice(state) {
  const unreachable = seconds(state.databaseUnreachableFor);
  if (!state.stale) {
    return unreachable === null ? null
      : 'The heartbeat has been failing to reach the database for ' + unreachable.toFixed(1) + ' s.';
  }
  const parts = [unreachable !== null
    ? 'Database unreachable for ' + unreachable.toFixed(1) + ' s'
    : capitalized(state.databaseError || 'the database did not answer')];
  const age = seconds(state.leaseAge);
  if (age !== null) {
    parts.push('last seen leader ' + (state.leader || '(none)') + ', term ' + state.term + ', '
      + age.toFixed(1) + ' s ago');
  }
  const candidatesAge = seconds(state.candidatesAge);
  if (candidatesAge !== null) parts.push('candidates as seen ' + candidatesAge.toFixed(1) + ' s ago');
  return parts.join('; ') + '.';
}

function timeAndRelative(iso, databaseTime) {
  const distance = relative(iso, databaseTime);
  return time(iso) + (distance ? ' (' + distance + ')' : '');
}

function showError(message) {
  const error = document.getElementById('error');
  error.hidden = !message;
  error.textContent = message || '';
}

async function call(method, body) {
  const options = { method, headers: { Accept: 'application/json' } };
  if (body !== undefined) {
    // Actuator writes with a body need this content type.
    options.headers['Content-Type'] = 'application/json';
    options.body = JSON.stringify(body);
  }
  const response = await fetch(endpoint, options);
  if (!response.ok) {
    let detail = await response.text();
    try {
      detail = JSON.parse(detail).message || detail;
    } catch (ignored) {
      // Not JSON: show the text as it is.
    }
    throw new Error(method + ' ' + endpoint + ' failed (' + response.status + '): ' + detail);
  }
  return response.json();
}

function cell(row, value) {
  const td = document.createElement('td');
  td.textContent = value;
  row.appendChild(td);
  return td;
}

function renderElection(state) {
  const databaseTime = databaseNow(state);
  const notice = databaseNotice(state);
  const database = document.getElementById('database');
  database.hidden = !notice;
  database.textContent = notice || '';
  text('election-name', election);
  text('leader', state.leader || '(none)');
  text('term', state.term);
  text('acquired', time(state.acquiredAt));
  text('renewed', timeAndRelative(state.renewedAt, databaseTime));
  text('expires', timeAndRelative(state.expiresAt, databaseTime) + (state.expired ? ' – expired' : ''));
  text('pending', state.handoverTo ? 'hand-over to ' + state.handoverTo
    : (state.reelectionPending ? 're-election' : 'none'));
  const role = document.getElementById('role');
  role.textContent = state.thisNodeLeads ? 'LEADER'
    : (state.nodeIdInUseElsewhere ? 'excluded: another instance uses this node id' : 'follower');
  role.className = 'role ' + (state.thisNodeLeads ? 'leader' : 'follower');

  document.getElementById('candidates').replaceChildren(...(state.candidates || []).map((candidate) => {
    const row = document.createElement('tr');
    row.dataset.nodeId = candidate.nodeId;
    const leads = candidate.nodeId === state.leader;
    if (leads) row.className = 'leader';
    cell(row, candidate.nodeId + (leads ? ' ★ leader' : '') + (candidate.nodeId === nodeId ? ' (this node)' : ''));
    cell(row, time(candidate.firstSeen));
    cell(row, timeAndRelative(candidate.lastSeen, databaseTime));
    const button = document.createElement('button');
    button.type = 'button';
    button.className = 'make-leader';
    button.dataset.nodeId = candidate.nodeId;
    button.textContent = 'Make leader';
    button.disabled = leads;
    button.addEventListener('click', () => act(() => call('POST', { nodeId: candidate.nodeId })));
    cell(row, '').appendChild(button);
    return row;
  }));
}

// Table rows of job runs; the cluster-lock job's section (lock-job.js) shows its runs with it too.
function runRows(runs) {
  return runs.map((run) => {
    const row = document.createElement('tr');
    row.dataset.nodeId = run.nodeId;
    for (const value of [run.id, run.nodeId, run.term, time(run.startedAt),
      (new Date(run.finishedAt) - new Date(run.startedAt)) + ' ms']) {
      cell(row, value);
    }
    return row;
  });
}

function renderRuns(runs) {
  document.getElementById('runs').replaceChildren(...runRows(runs));
}

async function act(action) {
  try {
    await action();
    showError(null);
  } catch (error) {
    showError(error.message);
  }
  refresh();
}

async function refresh() {
  try {
    if (nodeId === null) {
      const all = await (await fetch('actuator/leader')).json();
      nodeId = all.nodeId;
      text('node-id', nodeId);
    }
    // The job runs come from the database through the application's pool: they may not
    // come while it does not answer, so the election is shown without waiting for them.
    const jobRuns = fetch('api/job-runs?limit=15', { signal: AbortSignal.timeout(2000) })
      .then((response) => response.ok ? response.json() : Promise.reject(new Error('status ' + response.status)));
    renderElection(await call('GET'));
    text('refreshed', new Date().toLocaleTimeString('en-GB', { hour12: false }));
    if (document.getElementById('error').textContent.startsWith('Refresh')) showError(null);
    try {
      renderRuns((await jobRuns).runs);
      text('runs-error', '');
    } catch (error) {
      text('runs-error', 'Job runs not available: ' + error.message);
    }
  } catch (error) {
    showError('Refresh failed: ' + error.message);
  }
}

document.getElementById('reelect').addEventListener('click', () => act(() => call('DELETE')));
refresh();
setInterval(refresh, 1000);
