package emit

// aiohttpWriter writes the recommendation for aiohttp: aiohttp.ClientTimeout(total,
// sock_connect, sock_read) per attempt — aiohttp has a real total.
var aiohttpWriter = writer{target: AIOHTTP, kind: KindCode, language: "python",
	write: func(in Input) (Emission, error) { return writePython(aiohttpLib, in) }}

// aiohttpLib: aiohttp 3.8, measured on loopback (emit's real-client test): ClientTimeout's
// total ended a body dripping a byte every 250 ms at 0.82 s of an 0.8 s total, and
// sock_read alone (0.4 s) waited the whole 16 s. aiohttp rounds a timeout of 5 s or more up
// to the next whole second of the event loop's clock (aiohttp/helpers.py ceil_timeout,
// TimeoutHandle.start; measured: total=5.3 fired at 5.8–6.1 s), so the attempt also runs
// under asyncio.wait_for, which holds it to its end exactly. sock_connect is the TCP connect;
// ClientTimeout(connect=) would add the wait for a pooled connection.
var aiohttpLib = pyLib{
	name:    "aiohttp",
	imports: []string{"aiohttp"},
	async:   true,
	open:    "aiohttp.ClientSession()",
	connect: "the TCP connect (aiohttp.ClientTimeout sock_connect)",
	read: "each silence of the response: the wait for its head, then every pause between two reads " +
		"of the body (aiohttp.ClientTimeout sock_read); never the body as a whole",
	total: "one attempt as a whole, body included (aiohttp.ClientTimeout total, which rounds 5 s or more up " +
		"to a whole second of the loop's clock; asyncio.wait_for holds the attempt to it exactly)",
	attempt:  aiohttpAttempt,
	settings: aiohttpSettings,
	missing:  aiohttpMissing,
}

const aiohttpAttempt = `async def attempt(session, headers, seconds):
    """One attempt, over within seconds: (status, headers), or Failure."""
    timeout = aiohttp.ClientTimeout(
        total=seconds,
        sock_connect=within(CONNECT_TIMEOUT, seconds),
        sock_read=within(READ_TIMEOUT, seconds),
    )

    async def exchange():
        async with session.request(
            METHOD, URL, headers=headers, data=BODY, timeout=timeout
        ) as response:
            await response.read()
            return response.status, response.headers

    try:
        return await asyncio.wait_for(exchange(), seconds)
    except aiohttp.ClientConnectorError as e:
        raise Failure(f"could not connect: {e}", True) from None
    except aiohttp.ServerTimeoutError as e:
        # aiohttp 3.8 names a sock_connect timeout only in the message.
        if str(e).startswith("Connection timeout"):
            raise Failure("connect timeout", True) from None
        raise Failure(f"read timeout: {e}", RETRY_UNKNOWN) from None
    except asyncio.TimeoutError:
        raise Failure(f"total timeout: the response was not in after {seconds:.3f} s", RETRY_UNKNOWN) from None
    except aiohttp.ClientError as e:
        raise Failure(f"{type(e).__name__}: {e}", RETRY_UNKNOWN) from None
`

func aiohttpSettings(lib pyLib, p codePlan) []Setting {
	s := []Setting{}
	if p.Connect > 0 {
		s = append(s, Setting{Knob: "aiohttp.ClientTimeout(sock_connect=)", Value: pySeconds(p.Connect), Bounds: lib.connect})
	}
	if p.Read > 0 {
		s = append(s, Setting{Knob: "aiohttp.ClientTimeout(sock_read=)", Value: pySeconds(p.Read), Bounds: lib.read})
	}
	return append(s, Setting{Knob: "aiohttp.ClientTimeout(total=)", Value: pyTotal(p), Bounds: lib.total})
}

func aiohttpMissing(p codePlan) []string {
	m := []string{}
	if p.Attempts > 1 {
		m = append(m, "retries: aiohttp has no retry layer, and its total bounds one request, not the attempts and the "+
			"backoff between them; the program retries in its own loop"+budgetClause(p)+", each attempt given the least of the total and what is left")
	}
	if p.Job != nil {
		m = append(m, p.queueMissing("aiohttp"))
	}
	return m
}
