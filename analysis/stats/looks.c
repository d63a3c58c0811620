/*
 * Verdicts after looks (analysis/stats.h): an adaptive design judges
 * after every round from the first with enough values to its cap, and
 * stops when it likes what it sees.  A test at level alpha at whichever
 * look it stopped calls equal things different more often than alpha
 * (optional stopping: 6.45% at 5% for a campaign's boots auto before
 * this, bench/bisect.sh).  Bonferroni over the planned looks bounds that
 * chance by alpha whatever stopped the design, a manual stop or a report
 * read mid-way included, since it bounds the chance that any look
 * rejects; the intervals at the same level hold at every look together
 * (repeated confidence intervals, Jennison and Turnbull 1989).  It is
 * what the bisect's endpoints have always spent; a spending function
 * (Pocock, O'Brien-Fleming) would give more power at the last look but
 * needs the joint law of the looks, which t statistics on 3 to 10 boots
 * only approximate.
 */
#include "analysis/stats.h"

int
looks_planned(int first, int cap)
{
	return (cap > first ? cap - first + 1 : 1);
}

double
looks_p(double p, int looks)
{
	double q;

	if (looks <= 1 || p != p)
		return (p);
	q = p * (double)looks;
	return (q < 1 ? q : 1);
}

double
looks_conf(double conf, int looks)
{
	if (looks <= 1)
		return (conf);
	return (100 - (100 - conf) / (double)looks);
}
