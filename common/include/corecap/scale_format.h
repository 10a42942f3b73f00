/*
 * The contract between the collector's `corecap scale` (which records the
 * points and writes DIR/scale.json) and the analysis' corecap_scale_report
 * (which reads it back, fits and renders): the file's format name and the
 * output formats the command asks for (docs/run-directory.md, "Scale
 * directories").
 */
#ifndef CORECAP_SCALE_FORMAT_H
#define CORECAP_SCALE_FORMAT_H

#define CORECAP_SCALE_POINTS_FILE   "scale.json"
#define CORECAP_SCALE_POINTS_FORMAT "corecap-scale-points"

enum corecap_scale_output { CORECAP_SCALE_TEXT, CORECAP_SCALE_JSON, CORECAP_SCALE_HTML };

#endif
