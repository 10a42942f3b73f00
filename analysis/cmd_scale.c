/*
 * The analysis' half of `corecap scale` (the collector records the points,
 * collector/scale/scale_cmd.c): a scale directory built into its view
 * (pass/scale_build.h: the points' reports and the fit) and rendered
 * (render/scale_render.h).
 */
#include <stdio.h>
#include <string.h>

#include <corecap/analysis.h>
#include <corecap/diag.h>
#include <corecap/scale_format.h>
#include "pass/scale_build.h"
#include "render/scale_html.h"
#include "render/scale_render.h"

int corecap_scale_report(const char *dir, int format, FILE *out)
{
	static struct scale_view v;
	int ret = corecap_scale_build(&v, dir);

	if (ret)
		return ret;
	ret = format == CORECAP_SCALE_JSON   ? scale_render_json(&v, out)
	      : format == CORECAP_SCALE_HTML ? scale_render_html(&v, out)
					     : scale_render_text(&v, out);
	if (ret)
		corecap_error("cannot write the result: %s", strerror(-ret));
	return ret;
}
