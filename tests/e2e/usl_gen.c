/*
 * usl_gen SIGMA KAPPA T1 NOISE SEED REPS DIR N...: write DIR/N.txt, REPS
 * batch times per level N from a known Universal Scalability Law
 * (tests/unit/usl_synth.h), plain numbers as fsconc import reads them.
 * Levels are drawn interleaved, repetition by repetition, as fsconc run
 * orders its batches.  Built by tests/e2e/usl.sh against common/util.c.
 */
#include <err.h>
#include <stdio.h>
#include <stdlib.h>

#include "../unit/usl_synth.h"

int
main(int argc, char **argv)
{
	double sigma, kappa, t1, noise;
	uint64_t seed;
	FILE **fp;
	char *path;
	int reps, i, r;

	if (argc < 9)
		errx(2, "usage: usl_gen sigma kappa t1 noise seed reps dir N...");
	sigma = strtod(argv[1], NULL);
	kappa = strtod(argv[2], NULL);
	t1 = strtod(argv[3], NULL);
	noise = strtod(argv[4], NULL);
	seed = strtoull(argv[5], NULL, 10);
	reps = atoi(argv[6]);
	fp = calloc((size_t)argc, sizeof(*fp));
	if (fp == NULL)
		err(1, "calloc");
	for (i = 8; i < argc; i++) {
		path = xasprintf("%s/%s.txt", argv[7], argv[i]);
		if ((fp[i] = fopen(path, "w")) == NULL)
			err(1, "%s", path);
		free(path);
	}
	for (r = 0; r < reps; r++)
		for (i = 8; i < argc; i++)
			fprintf(fp[i], "%.6f\n", synth_time(t1, sigma, kappa,
			    atoi(argv[i]), noise, &seed));
	for (i = 8; i < argc; i++)
		if (fclose(fp[i]) != 0)
			err(1, "%s/%s.txt", argv[7], argv[i]);
	free(fp);
	return (0);
}
