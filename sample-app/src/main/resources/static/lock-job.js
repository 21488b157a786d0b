// The cluster-lock job's section of the status page: every second, how its latest runs
// spread over the instances, and the latest runs. Uses cell() and runRows() of app.js.
'use strict';

function renderLockJob(answer) {
  const total = Object.values(answer.runsPerNode).reduce((sum, runs) => sum + runs, 0);
  document.getElementById('lock-runs-counted').textContent = total;
  document.getElementById('lock-runs-per-node').replaceChildren(...Object.entries(answer.runsPerNode)
    .map(([node, runs]) => {
      const row = document.createElement('tr');
      row.dataset.nodeId = node;
      cell(row, node + (node === nodeId ? ' (this node)' : ''));
      cell(row, runs);
      cell(row, Math.round(100 * runs / total) + ' %');
      return row;
    }));
  document.getElementById('lock-runs').replaceChildren(...runRows(answer.runs));
}

async function refreshLockJob() {
  try {
    const response = await fetch('api/lock-job-runs?limit=10', { signal: AbortSignal.timeout(2000) });
    if (!response.ok) throw new Error('status ' + response.status);
    renderLockJob(await response.json());
    document.getElementById('lock-runs-error').textContent = '';
  } catch (error) {
    document.getElementById('lock-runs-error').textContent = 'Lock job runs not available: ' + error.message;
  }
}

refreshLockJob();
setInterval(refreshLockJob, 1000);
