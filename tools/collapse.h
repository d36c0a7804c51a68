/* SPDX-License-Identifier: GPL-2.0 */
/* daxpages --collapse (collapse.c) */
#ifndef DAXPAGES_COLLAPSE_H
#define DAXPAGES_COLLAPSE_H

/* collapse FILES; with DRY_RUN say what would move; 0 if all went well */
int collapse_files(char **files, int n, int dry_run);

#endif
