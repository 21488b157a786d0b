// The partition group's section of the status page: every second, the group "orders" as this
// node last saw it (GET /actuator/partitions/orders, which never touches the database), drawn
// as a grid of partitions coloured by owner, with a legend of the nodes and how many each owns.
'use strict';

const partitionGroup = 'orders';

// A colour per node id that stays the same while nodes come and go: the hue from a hash of
// the id, so a node keeps its colour on every instance's page and across refreshes.
function nodeColour(node) {
  if (!node) return '#bbb';
  let hash = 0;
  for (const character of node) hash = (hash * 31 + character.charCodeAt(0)) >>> 0;
  // The golden angle spreads consecutive hashes around the colour wheel.
  return 'hsl(' + Math.round((hash * 137.508) % 360) + ', 65%, 42%)';
}

function partitionCell(partition) {
  const square = document.createElement('div');
  square.className = 'partition' + (partition.owner === nodeId ? ' mine' : '')
    + (partition.target && partition.target !== partition.owner ? ' moving' : '');
  square.dataset.partition = partition.partition;
  square.dataset.owner = partition.owner || '';
  square.style.background = nodeColour(partition.owner);
  const number = document.createElement('strong');
  number.textContent = partition.partition;
  square.appendChild(number);
  square.appendChild(document.createTextNode(partition.owner || '(free)'));
  const move = partition.handoverTo ? 'handing over to ' + partition.handoverTo
    : (partition.target && partition.target !== partition.owner ? 'to move to ' + partition.target : '');
  square.title = 'partition ' + partition.partition + ': ' + (partition.owner || 'no owner')
    + (partition.owner ? ', term ' + partition.term : '') + (partition.pinnedTo ? ', pinned to ' + partition.pinnedTo : '')
    + (move ? ', ' + move : '');
  if (move) {
    const arrow = document.createElement('div');
    arrow.textContent = '→ ' + (partition.handoverTo || partition.target);
    square.appendChild(arrow);
  }
  return square;
}

function renderPartitions(group) {
  document.getElementById('partition-grid').replaceChildren(...group.partitions.map(partitionCell));
  const free = group.partitions.filter((partition) => !partition.owner).length;
  const entries = Object.entries(group.partitionsPerNode);
  if (free > 0) entries.push([null, free]);
  document.getElementById('partition-legend').replaceChildren(...entries.map(([node, count]) => {
    const item = document.createElement('li');
    item.dataset.nodeId = node || '';
    const swatch = document.createElement('span');
    swatch.className = 'swatch';
    swatch.style.background = nodeColour(node);
    item.appendChild(swatch);
    item.appendChild(document.createTextNode((node || '(free)') + (node === nodeId ? ' (this node)' : '')
      + ': ' + count));
    return item;
  }));
  text('partition-moves', group.pendingMoves.length === 0 ? 'none'
    : group.pendingMoves.map((move) => move.partition + ' ' + (move.from || '(free)') + ' → ' + move.to).join(', '));
}

async function refreshPartitions() {
  try {
    const response = await fetch('actuator/partitions/' + partitionGroup, { signal: AbortSignal.timeout(2000) });
    if (response.status === 404) throw new Error('this node has no partition group ' + partitionGroup);
    if (!response.ok) throw new Error('status ' + response.status);
    renderPartitions(await response.json());
    text('partitions-error', '');
  } catch (error) {
    text('partitions-error', 'Partitions not available: ' + error.message);
  }
}

refreshPartitions();
setInterval(refreshPartitions, 1000);
