// Multi-iteration benchmark harness for speeduptest's warm-up test data.
// No dependencies. Usage: node harness.js BENCH ITERATIONS
// Prints one line per iteration: the iteration's wall time in milliseconds
// (process.hrtime.bigint(), nanosecond resolution).
// MIT licence, written for speeduptest.
'use strict';

// Results go here so that V8 cannot drop the work as dead code.
let sink = 0;
function consume(x) {
  sink = (sink + (typeof x === 'number' ? x : x.length)) | 0;
}

// Small seeded PRNG (mulberry32), so every run sorts the same kind of data.
function mulberry32(seed) {
  let a = seed >>> 0;
  return function () {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// 1. fib: naive recursive Fibonacci (calls, small integers).
function fib(n) {
  return n < 2 ? n : fib(n - 1) + fib(n - 2);
}
function benchFib() {
  consume(fib(29));
}

// 2. richards: a Richards-like task scheduler (objects, polymorphic method
// calls, linked queues).
class Packet {
  constructor(link, id, kind) {
    this.link = link;
    this.id = id;
    this.kind = kind;
    this.a1 = 0;
    this.a2 = new Array(4).fill(0);
  }
  addTo(queue) {
    this.link = null;
    if (queue === null) return this;
    let p = queue;
    while (p.link !== null) p = p.link;
    p.link = this;
    return queue;
  }
}
class Task {
  constructor(sched, id, prio, queue) {
    this.sched = sched;
    this.id = id;
    this.prio = prio;
    this.queue = queue;
    this.count = 0;
  }
  take() {
    const p = this.queue;
    if (p !== null) this.queue = p.link;
    return p;
  }
}
class IdleTask extends Task {
  constructor(sched, id, prio, queue, count) {
    super(sched, id, prio, queue);
    this.v1 = 1;
    this.left = count;
  }
  run() {
    this.left--;
    if (this.left === 0) return null;
    if ((this.v1 & 1) === 0) {
      this.v1 >>= 1;
      return 2;
    }
    this.v1 = (this.v1 >> 1) ^ 0xd008;
    return 3;
  }
}
class WorkTask extends Task {
  constructor(sched, id, prio, queue) {
    super(sched, id, prio, queue);
    this.dest = 2;
    this.n = 0;
  }
  run() {
    const p = this.take();
    if (p === null) return -1;
    this.dest = this.dest === 2 ? 3 : 2;
    p.id = this.dest;
    p.a1 = 0;
    for (let i = 0; i < 4; i++) {
      this.n = (this.n + 1) % 26;
      p.a2[i] = this.n;
    }
    this.sched.send(p);
    return this.dest;
  }
}
class HandlerTask extends Task {
  constructor(sched, id, prio, queue) {
    super(sched, id, prio, queue);
    this.done = 0;
  }
  run() {
    const p = this.take();
    if (p === null) return -1;
    let s = 0;
    for (let i = 0; i < p.a2.length; i++) s += p.a2[i];
    this.done += s;
    this.count++;
    p.id = 1;
    this.sched.send(p);
    return 1;
  }
}
class Scheduler {
  constructor() {
    this.tasks = [];
  }
  add(t) {
    this.tasks[t.id] = t;
  }
  send(p) {
    const t = this.tasks[p.id];
    t.queue = p.addTo(t.queue);
    t.count++;
  }
  schedule() {
    let steps = 0;
    for (;;) {
      let ran = false;
      for (let i = 0; i < this.tasks.length; i++) {
        const t = this.tasks[i];
        const r = t.run();
        steps++;
        if (r === null) return steps;
        if (r !== -1) ran = true;
      }
      if (!ran && this.tasks[0].left <= 0) return steps;
    }
  }
}
function benchRichards() {
  const s = new Scheduler();
  let q = null;
  for (let i = 0; i < 6; i++) q = new Packet(q, 1, 0);
  s.add(new IdleTask(s, 0, 0, null, 100000));
  s.add(new WorkTask(s, 1, 1000, q));
  s.add(new HandlerTask(s, 2, 2000, null));
  s.add(new HandlerTask(s, 3, 3000, null));
  consume(s.schedule() + s.tasks[2].done + s.tasks[3].done);
}

// 3. sort: Array.prototype.sort with a comparator on fresh random numbers.
const sortRng = mulberry32(12345);
function benchSort() {
  const a = new Array(20000);
  for (let i = 0; i < a.length; i++) a[i] = sortRng();
  a.sort((x, y) => x - y);
  consume(a[a.length >> 1] * 1e6);
}

// 4. json: JSON.stringify / JSON.parse round trip of a nested document.
const jsonRng = mulberry32(777);
function makeDoc() {
  const items = [];
  for (let i = 0; i < 600; i++) {
    items.push({
      id: i,
      name: 'item-' + i,
      price: Math.round(jsonRng() * 100000) / 100,
      tags: ['a' + (i % 7), 'b' + (i % 11), 'c' + (i % 13)],
      dims: { w: jsonRng(), h: jsonRng(), d: jsonRng() },
      active: (i & 1) === 0,
    });
  }
  return { version: 3, items };
}
function benchJson() {
  const doc = makeDoc();
  let n = 0;
  for (let r = 0; r < 3; r++) {
    const text = JSON.stringify(doc);
    const back = JSON.parse(text);
    n += text.length + back.items.length;
  }
  consume(n);
}

// 5. regexp: build a log text by string concatenation, then scan it with
// regular expressions and rewrite it.
function benchRegexp() {
  let text = '';
  for (let i = 0; i < 8000; i++) {
    text += 'user' + (i % 97) + '@host' + (i % 13) + '.example.org ' +
      (i * 37 % 1000) + 'ms GET /p/' + i + '\n';
  }
  const re = /user(\d+)@host(\d+)\.example\.org (\d+)ms/g;
  let m;
  let total = 0;
  while ((m = re.exec(text)) !== null) total += (+m[1]) + (+m[2]) + (+m[3]);
  const out = text.replace(/\/p\/(\d+)/g, (_, d) => '/q/' + (d.length));
  consume(total + out.length);
}

// 6. nbody: a five-body floating-point simulation (doubles, object fields).
function makeBodies() {
  const PI = Math.PI;
  const SOLAR_MASS = 4 * PI * PI;
  const DAYS = 365.24;
  const b = (x, y, z, vx, vy, vz, m) => ({
    x, y, z, vx: vx * DAYS, vy: vy * DAYS, vz: vz * DAYS, m: m * SOLAR_MASS,
  });
  return [
    b(0, 0, 0, 0, 0, 0, 1),
    b(4.84143144246472090e+00, -1.16032004402742839e+00, -1.03622044471123109e-01,
      1.66007664274403694e-03, 7.69901118419740425e-03, -6.90460016972063023e-05,
      9.54791938424326609e-04),
    b(8.34336671824457987e+00, 4.12479856412430479e+00, -4.03523417114321381e-01,
      -2.76742510726862411e-03, 4.99852801234917238e-03, 2.30417297573763929e-05,
      2.85885980666130812e-04),
    b(1.28943695621391310e+01, -1.51111514016986312e+01, -2.23307578892655734e-01,
      2.96460137564761618e-03, 2.37847173959480950e-03, -2.96589568540237556e-05,
      4.36624404335156298e-05),
    b(1.53796971148509165e+01, -2.59193146099879641e+01, 1.79258772950371181e-01,
      2.68067772490389322e-03, 1.62824170038242295e-03, -9.51592254519715870e-05,
      5.15138902046611451e-05),
  ];
}
function advance(bodies, dt) {
  const n = bodies.length;
  for (let i = 0; i < n; i++) {
    const bi = bodies[i];
    for (let j = i + 1; j < n; j++) {
      const bj = bodies[j];
      const dx = bi.x - bj.x, dy = bi.y - bj.y, dz = bi.z - bj.z;
      const d2 = dx * dx + dy * dy + dz * dz;
      const mag = dt / (d2 * Math.sqrt(d2));
      bi.vx -= dx * bj.m * mag; bi.vy -= dy * bj.m * mag; bi.vz -= dz * bj.m * mag;
      bj.vx += dx * bi.m * mag; bj.vy += dy * bi.m * mag; bj.vz += dz * bi.m * mag;
    }
  }
  for (let i = 0; i < n; i++) {
    const b = bodies[i];
    b.x += dt * b.vx; b.y += dt * b.vy; b.z += dt * b.vz;
  }
}
function benchNbody() {
  const bodies = makeBodies();
  for (let s = 0; s < 50000; s++) advance(bodies, 0.01);
  consume(bodies[1].x * 1e9);
}

const BENCHES = {
  fib: benchFib,
  richards: benchRichards,
  sort: benchSort,
  json: benchJson,
  regexp: benchRegexp,
  nbody: benchNbody,
};

function main() {
  const [name, itersArg] = process.argv.slice(2);
  const bench = BENCHES[name];
  const iters = Number.parseInt(itersArg, 10);
  if (!bench || !(iters > 0)) {
    process.stderr.write('usage: node harness.js {' + Object.keys(BENCHES).join('|') +
      '} ITERATIONS\n');
    process.exit(2);
  }
  const lines = [];
  for (let i = 0; i < iters; i++) {
    const t0 = process.hrtime.bigint();
    bench();
    const t1 = process.hrtime.bigint();
    lines.push((Number(t1 - t0) / 1e6).toFixed(4));
  }
  // Printed after the loop so that output does not perturb the timings;
  // the sink goes to stderr so the result is observable.
  process.stdout.write(lines.join('\n') + '\n');
  process.stderr.write('sink ' + sink + '\n');
}

main();
