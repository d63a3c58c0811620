/*
 * The controller: experiment plan, workers, start gate, hwloc binding,
 * timing, the run loop.  cmd_run and cmd_nightly share the run options.
 */
#ifndef FSCONC_HARNESS_H
#define FSCONC_HARNESS_H

#endif
