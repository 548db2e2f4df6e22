/**
 * Sends a request again while it is answered 503 (the server's "retry later": a database too slow
 * for its deadline under load, a claim another request still holds), as a game does with the same
 * id, and returns the final answer. A test of what is made once counts over final answers.
 */
export async function untilAnswered<T extends { status: number }>(send: () => Promise<T>, attempts = 8): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    const answer = await send();
    if (answer.status !== 503 || attempt >= attempts) return answer;
    await new Promise((resolve) => setTimeout(resolve, 100 * attempt));
  }
}
