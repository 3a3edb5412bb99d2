/* retro's page: the JSON API it reads (/api/v1/...). No rules here: only requests,
 * their errors in the server's own words, and a cache of probe answers (a position's
 * answer never changes while the server runs). */

export class ApiError extends Error {
  constructor(message, status) {
    super(message);
    this.status = status;
  }
}

/** Position text with "_" between its groups: readable in URLs. */
export function linkText(text) { return text.trim().split(/\s+/).join('_'); }

export function api(path, params) {
  const query = Object.keys(params).filter((k) => params[k] !== null && params[k] !== undefined)
    .map((k) => k + '=' + encodeURIComponent(String(params[k]))).join('&');
  return fetch('api/v1/' + path + (query ? '?' + query : ''), {headers: {Accept: 'application/json'}})
    .catch(() => { throw new ApiError('the server cannot be reached', 0); })
    .then((response) => response.json().catch(() => null).then((data) => {
      if (!response.ok) {
        throw new ApiError((data && data.error) || ('the server answered ' + response.status), response.status);
      }
      return data;
    }));
}

const probes = new Map();  // game + position text -> promise of its probe answer

/** The probe answer of a position, in ``game``'s notation (a game's name), or in the
 *  notation of whatever game reads it (null). */
export function probe(text, game) {
  const key = (game || '') + '|' + text;
  const known = probes.get(key);
  if (known) return known;
  const promise = api('probe', {position: linkText(text), game: game}).then((answer) => {
    if (answer.position !== text) probes.set((game || '') + '|' + answer.position, promise);
    return answer;
  });
  promise.catch(() => probes.delete(key));
  probes.set(key, promise);
  return promise;
}
