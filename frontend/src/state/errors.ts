import type { ApiError } from '../lib/api'
import type { ErrorCode } from '../lib/api/codes'

/**
 * Plain words for the errors a person can act on: what happened and what to
 * do. Codes not listed here keep the sentence Go wrote (which already says
 * what to do, app/Error). Keys are codes Go sends (codes.ts, generated).
 */
const plain: Partial<Record<ErrorCode, string>> = {
  'quota/log_budget_exhausted':
    'The workspace has used all the storage its relay gives it, so this was not sent. Ask an admin to shorten how long messages are kept or to raise the relay’s budget, then send it again.',
  'limit/frame_size': 'This message is too large to send. Shorten it, or split it into several messages.',
  'auth/revoked': 'This device has been removed from the workspace, so it can no longer send here. Ask an admin to invite you again.',
  'auth/unknown_key': 'The relay does not know this device yet. Wait a minute for an admin’s device to come online, then try again.',
  'relay/unreachable': 'Weald cannot reach the relay. Check your internet connection, then try again.',
  'roster/invite_expired': 'This invite link has expired. Ask the person who sent it for a new one.',
  'roster/bad_name': 'A name is at most 80 bytes (about 80 letters) and cannot hold line breaks, tabs or other control characters.',
  'invite/bad_link': 'This is not a Weald invite link. Copy the whole link from the message you received and paste it again.',
  'channel/name_taken': 'A channel with this name already exists in the workspace. Pick another name.',
  'pair/wrong_link': 'This is an invite link, not a pairing link: go back and choose Join with an invite.',
}

/** While joining, some codes mean something about the link rather than this device. */
const joining: Partial<Record<ErrorCode, string>> = {
  'auth/revoked': 'This invite link has been revoked. Ask the person who sent it for a new one.',
}

/** While pairing a device, the grant codes are about the pairing link (it is one-use and short-lived). */
const pairing: Partial<Record<ErrorCode, string>> = {
  'auth/grant_used': 'This pairing link has already been used. On your other device, choose Add a device to make a new one.',
  'auth/revoked': 'This pairing link is no longer valid. On your other device, choose Add a device to make a new one.',
  'roster/invite_expired': 'This pairing link has expired. On your other device, choose Add a device to make a new one.',
}

/** While recovering with the recovery phrase, what the phrase, the link and the relay's answers mean for this person. */
const recovering: Partial<Record<ErrorCode, string>> = {
  'identity/phrase_checksum':
    'Every word is in the list, but together they are not a recovery phrase: one word is wrong or two are swapped. Check them against what you wrote down, in order.',
  'recovery/unknown_phrase':
    'These words are a valid recovery phrase, but nobody in this workspace has it. Check the words, and that the link is the one of your workspace.',
  'recovery/waiting': 'This device waits for an admin’s Weald to let it connect. Weald keeps trying by itself.',
  'invite/bad_link': 'This is not a whole Weald link. Copy the whole link and paste it again.',
}

/** plainRecoverMessage is plainMessage for an error of recovering with the recovery phrase. */
export function plainRecoverMessage(e: Pick<ApiError, 'code' | 'message'>): string {
  return recovering[e.code as ErrorCode] ?? plainMessage(e)
}

/** plainPairMessage is plainMessage for an error of joining as a device with a pairing link. */
export function plainPairMessage(e: Pick<ApiError, 'code' | 'message'>): string {
  return pairing[e.code as ErrorCode] ?? plainMessage(e)
}

/** plainJoinMessage is plainMessage for an error of joining with an invite link. */
export function plainJoinMessage(e: Pick<ApiError, 'code' | 'message'>): string {
  return joining[e.code as ErrorCode] ?? plainMessage(e)
}

export function plainMessage(e: Pick<ApiError, 'code' | 'message'>): string {
  return plain[e.code as ErrorCode] ?? e.message
}
