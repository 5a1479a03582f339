// Mail delivery: SMTP through nodemailer when SMTP_URL is set, otherwise an outbox table whose
// rows are also printed to the log (outside production) so a local user can read their codes.
// nodemailer is loaded only when SMTP is configured.
import type { Logger } from 'pino'
import type { Db } from '../../db/index.ts'
import { newId } from '../crypto/ids.ts'

export interface Mail {
  to: string
  subject: string
  text: string
  html: string
  /** what the mail is for, e.g. verify_email; kept with outbox rows */
  kind: string
}

declare module '../jobs/queue.ts' {
  interface JobPayloads {
    'mail.send': Mail
  }
}

export interface Mailer {
  readonly kind: 'smtp' | 'outbox'
  send(mail: Mail): Promise<void>
  close(): Promise<void>
}

export async function createSmtpMailer(url: string, from: string): Promise<Mailer> {
  const { default: nodemailer } = await import('nodemailer')
  const transport = nodemailer.createTransport(url)
  return {
    kind: 'smtp',
    async send(mail) {
      await transport.sendMail({ from, to: mail.to, subject: mail.subject, text: mail.text, html: mail.html })
    },
    async close() {
      transport.close()
    },
  }
}

/**
 * `printText`: also print each mail's text (with its code) to the log, for embedded mode where there
 * is no real mailbox. Off in production: a log is read by more people than a mailbox, and a code
 * in it signs in, resets a password or confirms a key export.
 */
export function createOutboxMailer(db: Db, log: Logger, opts: { printText?: boolean } = {}): Mailer {
  const printText = opts.printText ?? true
  return {
    kind: 'outbox',
    async send(mail) {
      await db
        .insertInto('mails')
        .values({
          id: newId(),
          toAddress: mail.to,
          subject: mail.subject,
          text: mail.text,
          html: mail.html,
          kind: mail.kind,
        })
        .execute()
      const about = { mail: { to: mail.to, subject: mail.subject, kind: mail.kind } }
      // Embedded mode only: there is no real mailbox, so the mail is shown where the user can read it.
      if (printText) log.info(about, `outbox mail\n${mail.text}`)
      else log.info(about, 'outbox mail (text kept in the mails table)')
    },
    async close() {},
  }
}
