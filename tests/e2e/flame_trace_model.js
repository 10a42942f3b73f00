// Loads a `corecap export --chrome` file with @tracerbench/trace-model's
// buildModel (the model Tracerbench builds of every event: metadata,
// complete, async and counter events) and prints what it holds as one JSON
// line: "processes", "threads" (named), "events", "slices" (X), "async"
// (b/e pairs), "counters" (C), "flows" (s), or an error and exit status 1 when the
// import throws. Usage: node flame_trace_model.js TRACE.json
'use strict';
const fs = require('fs');
const path = require('path');

const modules = path.join(__dirname, 'js', 'node_modules');
let buildModel;
try {
	({ buildModel } = require(path.join(modules, '@tracerbench', 'trace-model')));
} catch (e) {
	console.log(JSON.stringify({ missing: String(e.message).split('\n')[0] }));
	process.exit(3);
}
const trace = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
let model;
try {
	model = buildModel(trace);
} catch (e) {
	console.log(JSON.stringify({ error: String(e && e.stack ? e.stack : e) }));
	process.exit(1);
}
const out = { processes: model.processes.length, process_name: model.processes.map((p) => p.name).join(','), threads: 0, named_threads: 0, events: model.events.length,
	slices: 0, async: 0, counters: 0, flows: 0, metadata: 0, without_cat: 0 };
for (const p of model.processes) {
	for (const t of p.threads) {
		out.threads++;
		if (t.name) out.named_threads++;
	}
}
for (const e of model.events) {
	if (e.cat === undefined || e.cat === '' || (Array.isArray(e.cat) && e.cat.length === 0)) out.without_cat++;
	if (e.isMetadata()) out.metadata++;
	else if (e.ph === 'X') out.slices++;
	else if (e.ph === 'b') out.async++;
	else if (e.ph === 'C') out.counters++;
	else if (e.isFlowBegin()) out.flows++;
}
console.log(JSON.stringify(out));
