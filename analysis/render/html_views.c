#include "html_views.h"

#include "html_escape.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/*
 * The views' script (html_views.h): it reads the folded text of each
 * kind, counts self and total per function and the callers and callees
 * of the one clicked, and redraws the table on a sort, a search or a
 * change of kind. It fetches nothing.
 */
static const char script[] =
	"(function (sfx) {\n"
	"  'use strict';\n"
	"  var box = document.getElementById('cc-views' + sfx);\n"
	"  if (!box)\n"
	"    return;\n"
	"  var kinds = {}, cur = null, sortKey = 'self', desc = true, selected = null;\n"
	"  var sel = document.getElementById('cc-kind' + sfx), input = "
	"document.getElementById('cc-search' + sfx);\n"
	"  var tbody = document.querySelector('#cc-top' + sfx + ' tbody'), shown = "
	"document.getElementById('cc-shown' + sfx);\n"
	"  var peek = document.getElementById('cc-peek' + sfx);\n"
	"\n"
	"  /* The folded text: \"a;b;c W\" per line, as corecap flame prints it. */\n"
	"  function parse(text) {\n"
	"    var stacks = [], total = 0;\n"
	"    text.split('\\n').forEach(function (line) {\n"
	"      var sp = line.lastIndexOf(' '), w;\n"
	"      if (sp <= 0)\n"
	"        return;\n"
	"      w = +line.slice(sp + 1);\n"
	"      stacks.push({f: line.slice(0, sp).split(';'), w: w});\n"
	"      total += w;\n"
	"    });\n"
	"    return {stacks: stacks, total: total};\n"
	"  }\n"
	"\n"
	"  /* self: innermost frame; total: anywhere, once per stack. */\n"
	"  function tops(k) {\n"
	"    var by = new Map();\n"
	"    k.stacks.forEach(function (s) {\n"
	"      var seen = new Set();\n"
	"      s.f.forEach(function (name, i) {\n"
	"        var e = by.get(name);\n"
	"        if (!e) {\n"
	"          e = {name: name, self: 0, total: 0};\n"
	"          by.set(name, e);\n"
	"        }\n"
	"        if (!seen.has(name)) {\n"
	"          seen.add(name);\n"
	"          e.total += s.w;\n"
	"        }\n"
	"        if (i === s.f.length - 1)\n"
	"          e.self += s.w;\n"
	"      });\n"
	"    });\n"
	"    return Array.from(by.values());\n"
	"  }\n"
	"\n"
	"  function pct(v, all) {\n"
	"    return (all ? 100 * v / all : 0).toFixed(2);\n"
	"  }\n"
	"\n"
	"  function cell(tr, text, v) {\n"
	"    var td = document.createElement('td');\n"
	"    td.textContent = text;\n"
	"    if (v !== undefined)\n"
	"      td.setAttribute('data-v', v);\n"
	"    tr.appendChild(td);\n"
	"    return td;\n"
	"  }\n"
	"\n"
	"  function matcher() {\n"
	"    var term = input.value, re = null;\n"
	"    if (!term)\n"
	"      return function () { return true; };\n"
	"    try {\n"
	"      re = new RegExp(term, 'i');\n"
	"    } catch (err) {\n"
	"      re = null;\n"
	"    }\n"
	"    return re ? function (n) { return re.test(n); }\n"
	"              : function (n) { return n.toLowerCase().indexOf(term.toLowerCase()) >= 0; "
	"};\n"
	"  }\n"
	"\n"
	"  function render() {\n"
	"    var k = kinds[cur], rows = k.rows.slice(), ok = matcher(), frag = "
	"document.createDocumentFragment();\n"
	"    var n = 0, selfSum = 0;\n"
	"    rows.sort(function (a, b) {\n"
	"      var c = sortKey === 'name' ? (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)\n"
	"                                 : a[sortKey] - b[sortKey] || (a.name < b.name ? 1 : "
	"-1);\n"
	"      return desc ? -c : c;\n"
	"    });\n"
	"    rows.forEach(function (e) {\n"
	"      var tr;\n"
	"      if (!ok(e.name))\n"
	"        return;\n"
	"      n++;\n"
	"      selfSum += e.self;\n"
	"      tr = document.createElement('tr');\n"
	"      tr.className = e.name === selected ? 'cc-sel' : '';\n"
	"      cell(tr, e.name).className = 'cc-fn';\n"
	"      cell(tr, String(e.self), e.self);\n"
	"      cell(tr, pct(e.self, k.total));\n"
	"      cell(tr, String(e.total), e.total);\n"
	"      cell(tr, pct(e.total, k.total));\n"
	"      tr.addEventListener('click', function () { show(e.name); });\n"
	"      frag.appendChild(tr);\n"
	"    });\n"
	"    tbody.textContent = '';\n"
	"    tbody.appendChild(frag);\n"
	"    shown.textContent = n + ' of ' + k.rows.length + ' functions shown; their self: ' +\n"
	"      selfSum + ' of ' + k.total + ' ' + k.unit + ' (' + pct(selfSum, k.total) + '%)';\n"
	"    document.querySelectorAll('#cc-top' + sfx + ' th').forEach(function (th) {\n"
	"      th.setAttribute('data-order', th.getAttribute('data-k') === sortKey ? (desc ? "
	"'desc' : 'asc') : '');\n"
	"    });\n"
	"  }\n"
	"\n"
	"  /* pprof -peek: who calls fn and whom it calls, each once per stack. */\n"
	"  function show(fn) {\n"
	"    var k = kinds[cur], callers = new Map(), callees = new Map(), total = 0, self = 0;\n"
	"    selected = fn;\n"
	"    k.stacks.forEach(function (s) {\n"
	"      var cs = new Set(), ce = new Set();\n"
	"      s.f.forEach(function (name, i) {\n"
	"        if (name !== fn)\n"
	"          return;\n"
	"        cs.add(i ? s.f[i - 1] : '(none: outermost frame)');\n"
	"        ce.add(i < s.f.length - 1 ? s.f[i + 1] : '(self)');\n"
	"      });\n"
	"      if (!cs.size)\n"
	"        return;\n"
	"      total += s.w;\n"
	"      if (s.f[s.f.length - 1] === fn)\n"
	"        self += s.w;\n"
	"      cs.forEach(function (c) { callers.set(c, (callers.get(c) || 0) + s.w); });\n"
	"      ce.forEach(function (c) { callees.set(c, (callees.get(c) || 0) + s.w); });\n"
	"    });\n"
	"    peek.textContent = '';\n"
	"    var h = document.createElement('h3');\n"
	"    h.id = 'cc-peek-fn' + sfx;\n"
	"    h.textContent = fn;\n"
	"    peek.appendChild(h);\n"
	"    var p = document.createElement('p');\n"
	"    p.id = 'cc-peek-sum' + sfx;\n"
	"    p.textContent = 'total ' + total + ' ' + k.unit + ' (' + pct(total, k.total) + '%), "
	"self ' + self +\n"
	"      ' (' + pct(self, k.total) + '%)';\n"
	"    peek.appendChild(p);\n"
	"    [['callers', callers, 'caller'], ['callees', callees, 'callee']].forEach(function "
	"(part) {\n"
	"      var t = document.createElement('table'), tr = document.createElement('tr');\n"
	"      t.id = 'cc-' + part[0] + sfx;\n"
	"      ['' + part[2], k.unit, '% of ' + fn.slice(0, 40)].forEach(function (x) {\n"
	"        var th = document.createElement('th');\n"
	"        th.textContent = x;\n"
	"        tr.appendChild(th);\n"
	"      });\n"
	"      t.appendChild(tr);\n"
	"      Array.from(part[1].entries()).sort(function (a, b) { return b[1] - a[1]; "
	"}).forEach(function (e) {\n"
	"        var r = document.createElement('tr'), td = cell(r, e[0]);\n"
	"        cell(r, String(e[1]), e[1]);\n"
	"        cell(r, pct(e[1], total));\n"
	"        if (kinds[cur].rows.some(function (x) { return x.name === e[0]; })) {\n"
	"          td.className = 'cc-fn';\n"
	"          r.addEventListener('click', function () { show(e[0]); });\n"
	"        }\n"
	"        t.appendChild(r);\n"
	"      });\n"
	"      peek.appendChild(t);\n"
	"    });\n"
	"    render();\n"
	"  }\n"
	"\n"
	"  document.querySelectorAll('script.cc-folded[data-views=\"' + sfx + "
	"'\"]').forEach(function (el) {\n"
	"    var k = parse(JSON.parse(el.textContent));\n"
	"    k.unit = el.getAttribute('data-unit');\n"
	"    k.rows = tops(k);\n"
	"    kinds[el.getAttribute('data-kind')] = k;\n"
	"  });\n"
	"  cur = sel.value;\n"
	"  if (!kinds[cur])\n"
	"    return;\n"
	"  sel.addEventListener('change', function () {\n"
	"    cur = sel.value;\n"
	"    selected = null;\n"
	"    peek.textContent = 'Click a function for its callers and callees.';\n"
	"    render();\n"
	"  });\n"
	"  input.addEventListener('input', render);\n"
	"  /*\n"
	"   * A click on a frame of the kind's flame graph shows that function too\n"
	"   * (the graph zooms as well); the graphs follow this script in the page.\n"
	"   */\n"
	"  function bindFlames() {\n"
	"    document.querySelectorAll('div.flame[data-kind]').forEach(function (div) {\n"
	"      var kind = div.getAttribute('data-kind');\n"
	"      if (!kinds[kind])\n"
	"        return;\n"
	"      div.querySelectorAll('g.f').forEach(function (g) {\n"
	"        var name = g.querySelector('title').textContent.split('\\n')[0];\n"
	"        name = name.replace(/ \\([0-9,]+ [^()]*\\)$/, '');\n"
	"        g.addEventListener('click', function () {\n"
	"          if (!kinds[kind].rows.some(function (x) { return x.name === name; }))\n"
	"            return;\n"
	"          cur = sel.value = kind;\n"
	"          show(name);\n"
	"        });\n"
	"      });\n"
	"    });\n"
	"  }\n"
	"  if (document.readyState === 'loading')\n"
	"    document.addEventListener('DOMContentLoaded', bindFlames);\n"
	"  else\n"
	"    bindFlames();\n"
	"  document.querySelectorAll('#cc-top' + sfx + ' th').forEach(function (th) {\n"
	"    th.addEventListener('click', function () {\n"
	"      var key = th.getAttribute('data-k');\n"
	"      desc = key === sortKey ? !desc : key !== 'name';\n"
	"      sortKey = key;\n"
	"      render();\n"
	"    });\n"
	"  });\n"
	"  box.removeAttribute('hidden');\n"
	"  render();\n"
	"})"; /* called with the instance's id suffix: corecap_html_views_at() */

const char corecap_html_views_css[] =
	"[id^=cc-views] .cc-split{display:flex;gap:1.5em;align-items:flex-start;flex-wrap:wrap}\n"
	"[id^=cc-views] .cc-scroll{max-height:34em;overflow-y:auto}\n"
	"[id^=cc-views] th{cursor:pointer}[id^=cc-views] th[data-order=desc]::after{content:' "
	"\\25BE'}[id^=cc-views] th[data-order=asc]::after{content:' \\25B4'}\n"
	".cc-fn{cursor:pointer;font-family:monospace}tr.cc-sel td{background:#fff0c0}\n";

static int embed_stacks(const struct html_view_stacks *v, const char *sfx, FILE *out)
{
	char *text = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&text, &len);
	int ret;

	if (!mem)
		return -ENOMEM;
	/* The lines `corecap flame` prints: one writer for both. */
	ret = corecap_folded_write(v->folded, mem, 1);
	if (fclose(mem) && !ret)
		ret = -ENOMEM;
	if (!ret) {
		fprintf(out,
			"<script type=\"application/json\" class=\"cc-folded\" "
			"data-kind=\"%s\" data-unit=\"%s\" data-views=\"%s\">\"",
			v->kind, v->unit ? v->unit : "samples", sfx);
		corecap_json_escape(out, text);
		fputs("\"</script>\n", out);
	}
	free(text);
	return ret;
}

int corecap_html_views(const struct html_view_stacks *v, size_t n, FILE *out)
{
	return corecap_html_views_at(v, n, "", true, out);
}

/* An id suffix goes into ids and a JS string literal unescaped: letters, digits and '-' only. */
static bool sfx_ok(const char *sfx)
{
	for (const char *c = sfx; *c; c++)
		if (!isalnum((unsigned char)*c) && *c != '-')
			return false;
	return strlen(sfx) < 32;
}

int corecap_html_views_at(const struct html_view_stacks *v, size_t n, const char *sfx,
			  bool with_flames, FILE *out)
{
	int ret;

	if (!n)
		return 0;
	if (!sfx_ok(sfx))
		return -EINVAL;
	fprintf(out,
		"<h2 id=\"cc-top-h%s\">Top functions</h2>\n"
		"<p>Per function, as <code>pprof -top</code>: <b>self</b> is the weight of the "
		"stacks whose innermost frame it is, <b>total</b> that of the stacks holding it "
		"anywhere (once per stack). Counted from %s (the lines <code>corecap flame</code> "
		"prints), so the self column sums to their total. Click a header to sort, type in "
		"the search (a regular expression, else a substring), click a function for its "
		"callers and callees (as <code>pprof -peek</code>)%s.</p>\n"
		"<noscript><p class=\"note\">The table needs the page&#39;s script.</p>"
		"</noscript>\n"
		"<div id=\"cc-views%s\" hidden>\n<p><label>stacks <select id=\"cc-kind%s\">",
		sfx,
		with_flames ? "the flame graphs&#39; own stacks below" : "the daemon&#39;s stacks",
		with_flames ? ", or click it in the flame graph" : "", sfx, sfx);
	for (size_t i = 0; i < n; i++) {
		fprintf(out, "<option value=\"%s\">%s (%" PRIu64 " %s)</option>", v[i].kind,
			v[i].kind, v[i].folded->nodes[FOLDED_ROOT].total[0],
			v[i].unit ? v[i].unit : "samples");
	}
	fprintf(out,
		"</select></label> <label>search <input id=\"cc-search%s\" type=\"search\" "
		"size=\"30\" placeholder=\"function (regular expression)\"></label> "
		"<span id=\"cc-shown%s\"></span></p>\n"
		"<div class=\"cc-split\"><div class=\"cc-scroll\"><table "
		"id=\"cc-top%s\"><thead><tr>"
		"<th data-k=\"name\">function</th><th data-k=\"self\">self</th>"
		"<th data-k=\"self\">self %%</th><th data-k=\"total\">total</th>"
		"<th data-k=\"total\">total %%</th></tr></thead><tbody></tbody></table></div>\n"
		"<div id=\"cc-peek%s\">Click a function for its callers and callees.</div></div>\n"
		"</div>\n",
		sfx, sfx, sfx, sfx);
	for (size_t i = 0; i < n; i++) {
		ret = embed_stacks(&v[i], sfx, out);
		if (ret)
			return ret;
	}
	fprintf(out, "<script>\n%s('%s');\n</script>\n", script, sfx);
	return ferror(out) ? -EIO : 0;
}
