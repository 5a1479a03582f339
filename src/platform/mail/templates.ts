// The mails the service sends. Each has a plain-text and an HTML part.

const escapeHtml = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!)

const CODE_PURPOSES = {
  verify_email: { subject: 'Verify your email', intro: 'Use this code to verify your email address:' },
  reset_password: { subject: 'Reset your password', intro: 'Use this code to reset your password:' },
  login_2fa: { subject: 'Your sign-in code', intro: 'Use this code to finish signing in:' },
  two_fa: { subject: 'Your security code', intro: 'Use this code to confirm a sensitive action:' },
} as const

export type CodeMailPurpose = keyof typeof CODE_PURPOSES

export function codeMail(purpose: CodeMailPurpose, to: string, name: string, code: string) {
  const { subject, intro } = CODE_PURPOSES[purpose]
  const greeting = name ? `Hello ${name},` : 'Hello,'
  const text = `${greeting}\n\n${intro}\n\n    ${code}\n\nThe code is valid for 15 minutes. If you did not ask for it, ignore this mail.\n`
  const html = `<!doctype html><html><body style="font-family:sans-serif"><p>${escapeHtml(greeting)}</p><p>${escapeHtml(intro)}</p><p style="font-size:24px;font-weight:bold;letter-spacing:4px">${code}</p><p>The code is valid for 15 minutes. If you did not ask for it, ignore this mail.</p></body></html>`
  return { to, subject, text, html, kind: purpose }
}

export function noticeMail(kind: string, to: string, subject: string, lines: string[]) {
  const text = `${lines.join('\n\n')}\n`
  const html = `<!doctype html><html><body style="font-family:sans-serif">${lines.map((l) => `<p>${escapeHtml(l)}</p>`).join('')}</body></html>`
  return { to, subject, text, html, kind }
}
