/** `npm run bench`: the performance figures of CONTRACT section 12 (filled in as they land). */
console.log('No figures yet: the token, session and limiter benchmarks come with their features.');
