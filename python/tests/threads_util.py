"""A test body run on several threads at once, for the tests that check
that threads sharing one model get the same results."""
import threading


def in_threads(body, n):
    """Runs body(k) for k = 0 .. n-1 on n threads at once; returns what
    went wrong (reprs of the exceptions raised, AssertionError included)."""
    errors = []

    def run(k):
        try:
            body(k)
        except Exception as e:  # a failure in a thread fails the test
            errors.append(repr(e))

    ts = [threading.Thread(target=run, args=(k,)) for k in range(n)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    return errors
