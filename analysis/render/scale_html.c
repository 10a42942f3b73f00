/*
 * A scale directory's result as one HTML page (`corecap scale --html`):
 * the chart in the style of the published OSD scaling curves (throughput
 * against cores: the measured points, the fitted curve with its
 * bootstrap band, the peak or the level it tends to, and what limits it
 * named beside), then the text result. Self-contained: inline SVG, no
 * script, every string from the runs escaped.
 */
#include "scale_html.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "html_escape.h"

#define W	760
#define H	420
#define LEFT	80
#define RIGHT	30
#define TOP	30
#define BOTTOM	50
#define SAMPLES 120

struct chart_axes {
	double xmax, ymax;
};

static double px(const struct chart_axes *a, double n)
{
	return LEFT + (n - 1) / (a->xmax - 1) * (W - LEFT - RIGHT);
}

static double py(const struct chart_axes *a, double x)
{
	return H - BOTTOM - x / a->ymax * (H - TOP - BOTTOM);
}

/* A round step for about five ticks up to max. */
static double tick_step(double max)
{
	double raw = max / 5, mag = pow(10, floor(log10(raw))), r = raw / mag;

	return (r <= 1 ? 1 : r <= 2 ? 2 : r <= 5 ? 5 : 10) * mag;
}

static void axes(const struct chart_axes *a, FILE *out)
{
	double step = tick_step(a->ymax);
	int xstep = a->xmax > 16 ? 4 : a->xmax > 8 ? 2 : 1;

	for (double y = 0; y <= a->ymax + 1e-9; y += step)
		fprintf(out,
			"<line x1='%d' y1='%.1f' x2='%d' y2='%.1f' stroke='#ddd'/>"
			"<text x='%d' y='%.1f' text-anchor='end' font-size='11'>%.0f</text>\n",
			LEFT, py(a, y), W - RIGHT, py(a, y), LEFT - 6, py(a, y) + 4, y);
	for (int n = 1; n <= (int)a->xmax; n += (n == 1 && xstep > 1) ? xstep - 1 : xstep)
		fprintf(out,
			"<line x1='%.1f' y1='%d' x2='%.1f' y2='%d' stroke='#eee'/>"
			"<text x='%.1f' y='%d' text-anchor='middle' font-size='11'>%d</text>\n",
			px(a, n), TOP, px(a, n), H - BOTTOM, px(a, n), H - BOTTOM + 16, n);
	fprintf(out,
		"<line x1='%d' y1='%d' x2='%d' y2='%d' stroke='#333'/>"
		"<line x1='%d' y1='%d' x2='%d' y2='%d' stroke='#333'/>\n"
		"<text x='%d' y='%d' text-anchor='middle' font-size='12'>cores</text>\n"
		"<text x='16' y='%d' font-size='12' transform='rotate(-90 16 %d)' "
		"text-anchor='middle'>ops/s</text>\n",
		LEFT, H - BOTTOM, W - RIGHT, H - BOTTOM, LEFT, TOP, LEFT, H - BOTTOM,
		(LEFT + W - RIGHT) / 2, H - 12, (TOP + H - BOTTOM) / 2, (TOP + H - BOTTOM) / 2);
}

static void curve(const struct scale_view *v, const struct chart_axes *a, FILE *out)
{
	const struct scaling_fit *f = &v->fit;

	if (f->has_interval) {
		fputs("<polygon fill='#4a7fb5' fill-opacity='0.18' stroke='none' points='", out);
		for (int n = 1; n <= (int)a->xmax; n++)
			fprintf(out, "%.1f,%.1f ", px(a, n), py(a, f->band_hi[n - 1]));
		for (int n = (int)a->xmax; n >= 1; n--)
			fprintf(out, "%.1f,%.1f ", px(a, n), py(a, f->band_lo[n - 1]));
		fputs("'><title>the fit's 95% band (bootstrap)</title></polygon>\n", out);
	}
	fputs("<polyline fill='none' stroke='#4a7fb5' stroke-width='2' points='", out);
	for (int i = 0; i <= SAMPLES; i++) {
		double n = 1 + (a->xmax - 1) * i / SAMPLES;

		fprintf(out, "%.1f,%.1f ", px(a, n), py(a, scaling_fit_at(f, n)));
	}
	fprintf(out, "'><title>USL fit: lambda %.0f, sigma %.3f, kappa %.4f</title></polyline>\n",
		f->lambda, f->sigma, f->kappa);
	if (f->peak_cores > 1 && f->peak_cores <= a->xmax)
		fprintf(out,
			"<line x1='%.1f' y1='%d' x2='%.1f' y2='%d' stroke='#b54a4a' "
			"stroke-dasharray='4 3'/><text x='%.1f' y='%d' font-size='11' "
			"fill='#b54a4a'>peak %.1f cores</text>\n",
			px(a, f->peak_cores), TOP, px(a, f->peak_cores), H - BOTTOM,
			px(a, f->peak_cores) + 4, TOP + 12, f->peak_cores);
	else if (f->peak_cores == 0 && f->peak_x > 0 && f->peak_x <= a->ymax)
		fprintf(out,
			"<line x1='%d' y1='%.1f' x2='%d' y2='%.1f' stroke='#b54a4a' "
			"stroke-dasharray='4 3'/><text x='%d' y='%.1f' font-size='11' "
			"fill='#b54a4a' text-anchor='end'>levels off at %.0f (lambda / "
			"sigma)</text>\n",
			LEFT, py(a, f->peak_x), W - RIGHT, py(a, f->peak_x), W - RIGHT - 4,
			py(a, f->peak_x) - 4, f->peak_x);
}

static void points(const struct scale_view *v, const struct chart_axes *a, FILE *out)
{
	for (size_t i = 0; i < v->n; i++) {
		if (!v->pt[i].measured || v->pt[i].cores > a->xmax)
			continue;
		fprintf(out, "<circle cx='%.1f' cy='%.1f' r='5' fill='%s' stroke='#222'><title>",
			px(a, v->pt[i].cores), py(a, v->pt[i].iops),
			v->pt[i].resets ? "white" : "#222");
		fprintf(out, "%g cores (CPUs ", v->pt[i].cores);
		corecap_html_escape(out, v->pt[i].cpus, 0);
		fprintf(out, "): %.0f ops/s, %.1f us of CPU per op%s</title></circle>\n",
			v->pt[i].iops, v->pt[i].cpu_s_per_op * 1e6,
			v->pt[i].resets ? "; marked: a thread reset its affinity" : "");
	}
}

int scale_render_html(const struct scale_view *v, FILE *out)
{
	const struct scaling_fit *f = &v->fit;
	struct chart_axes a = {.xmax = 16, .ymax = 0};
	char *text = NULL;
	size_t len = 0;
	FILE *mem;
	int ret;

	for (size_t i = 0; i < v->n; i++)
		if (v->pt[i].measured) {
			a.ymax = fmax(a.ymax, v->pt[i].iops);
			if (v->pt[i].cores > a.xmax)
				a.xmax = fmin(SCALING_BAND, ceil(v->pt[i].cores));
		}
	if (f->valid && f->peak_cores > a.xmax)
		a.xmax = fmin(SCALING_BAND, ceil(f->peak_cores * 1.5));
	for (int n = 1; f->valid && n <= (int)a.xmax; n++)
		a.ymax = fmax(a.ymax, f->has_interval ? f->band_hi[n - 1] : scaling_fit_at(f, n));
	a.ymax = a.ymax > 0 ? a.ymax * 1.1 : 1;
	mem = open_memstream(&text, &len);
	if (!mem)
		return -ENOMEM;
	ret = scale_render_text(v, mem);
	if (fclose(mem) && !ret)
		ret = -ENOMEM;
	if (ret) {
		free(text);
		return ret;
	}
	fputs("<!DOCTYPE html>\n<html><head><meta charset='utf-8'><title>corecap scale: ", out);
	corecap_html_escape(out, v->comm, 0);
	fputs("</title><style>body{font-family:sans-serif;margin:2em}pre{font-size:12px;white-space:pre-wrap}"
	      "</style></head><body>\n<h1>corecap scale: ",
	      out);
	corecap_html_escape(out, v->comm, 0);
	fprintf(out, " (pid %d)</h1>\n<p>", v->pid);
	corecap_html_escape(out, v->benchmark, 0);
	fputs("</p>\n", out);
	fprintf(out,
		"<svg xmlns='http://www.w3.org/2000/svg' width='%d' height='%d' "
		"viewBox='0 0 %d %d' role='img'><title>throughput against cores</title>\n",
		W, H, W, H);
	axes(&a, out);
	if (f->valid)
		curve(v, &a, out);
	points(v, &a, out);
	fputs("</svg>\n<p>Dots: the measured points (hollow: marked, a thread reset its "
	      "affinity). Line: the Universal Scalability Law's fit",
	      out);
	fputs(f->has_interval ? ", with its 95% band (bootstrap)." : " (no interval: see below).",
	      out);
	fputs("</p>\n<pre>", out);
	corecap_html_escape(out, text, 0);
	fputs("</pre>\n</body></html>\n", out);
	free(text);
	return ferror(out) ? -EIO : 0;
}
