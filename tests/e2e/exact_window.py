"""The exact window of `tlbf-dedup -a exact` with event time, as a reference for the e2e tests
of the time options: each test reads the keys and times of its records its own way (as the
input's format says, independently of the program) and this decides which records are kept.

Records are judged in order at the clock, the largest time read so far (0 before the first;
a late or untimed record is judged at it). A record is a duplicate when its key was kept at a
clock less than the window before; otherwise it is kept and its key stamped with the clock.
A record without a key (None) is kept and remembered by nothing.
"""


def kept(records, window_ns):
    """records: (key, time in nanoseconds or None, record) in input order; the kept records."""
    clock, stamps, out = 0, {}, []
    for key, time, record in records:
        if time is not None and time > clock:
            clock = time
        if key is not None:
            stamp = stamps.get(key)
            if stamp is not None and clock - stamp < window_ns:
                continue
            stamps[key] = clock
        out.append(record)
    return out


def day_rollover(times_of_day, first_day):
    """The day of each time of day (nanoseconds since midnight, None for no time), as the man
    page's rule says: the first on `first_day`; one more than 12 hours before the latest time of
    day of the current day starts the next day; one that falls at most an hour before the latest
    stamp when placed on the day before is placed there; any other stays on the current day."""
    hour, day_ns = 3600 * 10**9, 86400 * 10**9
    day, latest, out = first_day, None, []
    for t in times_of_day:
        if t is None:
            out.append(None)
        elif latest is None:
            latest = t
            out.append(day)
        elif t + 12 * hour < latest:
            day, latest = day + 1, t
            out.append(day)
        elif t > latest and latest + day_ns - t <= hour:
            out.append(day - 1)
        else:
            latest = max(latest, t)
            out.append(day)
    return out
