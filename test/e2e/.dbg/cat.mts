import { registryCatalog } from '/work/main/electron/engine/env-catalog';
const c = registryCatalog();
let t = performance.now();
console.log(c.ids());
const list = await c.list();
console.log(JSON.stringify(list.map(e => [e.id, e.track, e.toolCount, e.taskCounts])), (performance.now() - t).toFixed(0), 'ms');
t = performance.now();
const d = await c.get('mock'); console.log(JSON.stringify(d?.tools[0]));
console.log(JSON.stringify(await c.call('mock', d!.tools[0]!.name, {})), (performance.now() - t).toFixed(0));
