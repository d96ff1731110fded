import type { TextField } from '../form-fields';
import type { Formats } from './format';
import { formatsFor } from './format';
import { PartnerLink } from './partner-link';

/**
 * The host pages in English: the reference catalogue. Its keys and parameter types are the
 * `Messages` type every other language implements, so a missing or misspelt key is a compile error.
 * It joins four sections, each typed for the other languages below (`ShellMessages`, …); built
 * when a page first needs English, never at load.
 */
export function en() {
  const f = formatsFor('en');
  return { ...shell(), ...wizardSteps(f), ...review(f), ...errorPages(f) };
}

/** The frame of every host page, the marketplace, the wizard's frame and the choice between two setups. */
function shell() {
  return {
    // The frame of every host page
    sponsoredBy: 'Sponsored by',
    languageSwitch: 'Language',
    progressLabel: 'Progress',
    stageProducts: 'Products',
    stageDone: 'Done',
    backTo: (partner: string) => `Back to ${partner}`,

    // Marketplace
    marketplaceTitle: 'Choose your products',
    welcomeHeading: (name: string) => `Welcome, ${name}`,
    marketplaceLead: (partner: string) =>
      `${partner} sponsors your account: choose the products to switch on. There is nothing to pay.`,
    noProductsOffered: (partner: string) =>
      `None of the products in this link are part of ${partner}’s offer any more. Ask ${partner} for a fresh link.`,
    productsFor: (email: string) => `Products for ${email}`,
    activateSelected: 'Activate selected products',
    onlyListedProducts: 'Only the products listed here can be activated. Choose among them.',
    chooseAtLeastOne: 'Choose at least one product to activate.',
    propertyTakenTitle: 'This property is already set up',
    propertyTaken: (partner: string) =>
      `${partner} already set this property up for another account. Ask ${partner} to check the e-mail address in your link. Nothing was changed.`,

    // The wizard's frame
    saveAndContinue: 'Save and continue',
    backButton: 'Back',
    savedOnContinue: 'Each step is saved when you continue or go back.',
    pleaseCheck: 'Please check:',

    // A browser with a setup in progress opens another link
    sessionChoiceTitle: 'You have a setup in progress',
    sessionChoiceCurrent: (current: string, partner: string) =>
      `This browser is in the middle of a setup with ${partner} for ${current}.`,
    sessionChoiceNew: (name: string) =>
      `The link you just opened is for ${name}. Starting with it ends the setup in progress in this browser; what it saved stays saved.`,
    sessionDoneTitle: 'You finished a setup in this browser',
    sessionDoneCurrent: (current: string, partner: string) =>
      `This browser finished the setup with ${partner} for ${current}.`,
    sessionDoneNew: (name: string) =>
      `The link you just opened is for ${name}. Starting with it leaves the finished setup as it is; you can change its answers later from its own link.`,
    openMySetup: 'Open my finished setup',
    continueMySetup: 'Continue my setup',
    startWithNewLink: 'Start with the new link',
  };
}

/** The wizard's steps (property and check-in, questions, offers): their labels, hints and errors. */
function wizardSteps(f: Formats) {
  const n = f.number;
  return {
    // Step: property and check-in
    detailsTitle: 'Your property and check-in',
    detailsStage: 'Property',
    propertyName: 'Property name',
    checkinInstructions: 'Check-in instructions',
    propertyNameHelp: (partner: string) =>
      `The name guests know the property by. It starts as the name ${partner} gave us for you: change it if it is not the property's.`,
    checkinHelp: 'What guests need on arrival: time, address details, keys or codes, parking.',
    errorPropertyName: (max: number) => `Property name: enter 1 to ${n(max)} characters, on one line.`,
    errorCheckin: (min: number, max: number) =>
      `Check-in instructions: enter ${n(min)} to ${n(max)} characters, e.g. where the keys are and from what time.`,
    errorCheckinCharacters:
      'Check-in instructions: remove the invisible control or text-direction characters (line breaks and tabs are fine).',

    // Step: questions and answers
    faqsTitle: 'Questions guests ask',
    faqsStage: 'Questions',
    faqsIntro: 'Add the questions guests ask most, with your answers. Empty rows are ignored.',
    addAnotherQuestion: 'Add another question',
    questionNumber: (number: number) => `Question ${n(number)}`,
    questionLabel: 'Question',
    answerLabel: 'Answer',
    errorFaqIncomplete: (number: number) =>
      `Question ${n(number)}: fill in both the question and its answer.`,
    errorFaqTooLong: (number: number, questionMax: number, answerMax: number) =>
      `Question ${n(number)}: keep questions under ${n(questionMax)} and answers under ${n(answerMax)} characters.`,
    errorFaqQuestionLine: (number: number) =>
      `Question ${n(number)}: write the question on one line, without control or text-direction characters.`,
    errorFaqAnswerCharacters: (number: number) =>
      `Question ${n(number)}: remove the invisible control or text-direction characters from the answer (line breaks and tabs are fine).`,
    errorFaqNone: 'Add at least one question your guests often ask, with its answer.',
    errorFaqTooMany: (max: number) => `Add at most ${n(max)} questions.`,

    // Step: offers
    upsellsTitle: 'Offers for your guests',
    upsellsStage: 'Offers',
    upsellsIntro:
      'Extras guests can book before or during their stay, such as early check-in or an airport pick-up. You can leave this empty.',
    offerNumber: (number: number) => `Offer ${n(number)}`,
    offerTitle: 'Title',
    offerDescription: 'Description',
    addAnotherOffer: 'Add another offer',
    guestPrice: 'Guest price',
    priceHint: (examples: readonly [string, string]) => `A number, such as ${examples[0]} or ${examples[1]}.`,
    currencyLabel: 'Currency',
    errorOfferTitle: (number: number, max: number) =>
      `Offer ${n(number)}: give it a title of up to ${n(max)} characters, on one line, without control or text-direction characters.`,
    errorOfferDescription: (number: number, max: number) =>
      `Offer ${n(number)}: keep the description under ${n(max)} characters.`,
    errorOfferDescriptionCharacters: (number: number) =>
      `Offer ${n(number)}: remove the invisible control or text-direction characters from the description (line breaks and tabs are fine).`,
    errorOfferPrice: (number: number, examples: readonly [string, string]) =>
      `Offer ${n(number)}: enter the guest price as a number, e.g. ${examples[0]} or ${examples[1]}.`,
    errorOfferPriceNegative: (number: number) =>
      `Offer ${n(number)}: a price cannot be below zero; enter 0 for an offer that is free.`,
    errorOfferPriceDecimals: (number: number, example: string) =>
      `Offer ${n(number)}: a price has at most two decimals, e.g. ${example}.`,
    errorOfferPriceTooHigh: (number: number, max: string) =>
      `Offer ${n(number)}: an offer costs at most ${max}.`,
    errorOfferCurrency: (number: number) => `Offer ${n(number)}: choose a currency.`,
    errorOfferTooMany: (max: number) => `Add at most ${n(max)} offers.`,
  };
}

/** The review step and the closing page. */
function review(f: Formats) {
  const n = f.number;
  return {
    // Step: review
    reviewTitle: 'Review and finish',
    reviewStage: 'Review',
    activeProducts: (products: readonly string[]) => `Active products: ${f.list(products)}.`,
    reviewCheckin: 'Check-in',
    notFilledIn: (step: number) => `Not filled in yet (step ${n(step)}).`,
    missingCheckin: (step: number) => `Check-in instructions are missing (step ${n(step)}).`,
    reviewQuestions: (count: number) => `Questions (${n(count)})`,
    missingFaqs: (step: number) => `Add at least one question and answer (step ${n(step)}).`,
    reviewOffers: (count: number) => `Offers (${n(count)})`,
    noOffers: 'No offers: guests see none.',
    offerSummary: (offer: { title: string; price: string; description: string }) => (
      <>
        <strong>{offer.title}</strong>, {offer.price}
        {offer.description ? `: ${offer.description}` : '.'}
      </>
    ),
    changeLater: (partner: string) =>
      `To change your answers later, ask ${partner} for a new activation link: it opens these steps again with the answers you saved.`,
    finishSetup: 'Finish setup',
    saveChanges: 'Save my changes',

    // The closing page
    doneTitle: 'You are all set',
    setupComplete: 'Your setup is complete.',
    nowActive: (products: readonly string[], property: string) =>
      `Now active for ${property}: ${f.list(products)}.`,
    knowledgeSummary: (known: readonly string[], property: string) =>
      `It knows ${f.list(known)} for ${property}.`,
    knowledgeOnItsWay: (known: readonly string[], property: string) =>
      `Once your answers are sent, it will know ${f.list(known)} for ${property}. Reload this page to see when they are.`,
    answersOnTheirWay: (product: string) => `Your answers are on their way to “${product}”.`,
    unsentChanges:
      'You changed answers after you last sent them: the changes are saved here, but not sent yet.',
    reviewAndSend: 'Review and send them',
    changeAnswers: 'Change your answers',
    knownCheckin: 'the check-in instructions',
    knownAnswers: (count: number) => f.plural(count, { one: '# answer', other: '# answers' }),
    knownOffers: (count: number) => f.plural(count, { one: '# offer', other: '# offers' }),
    closeTab: (partner: string, website?: string) => (
      <>
        You can close this tab and return to <PartnerLink name={partner} website={website} />.
      </>
    ),
  };
}

/** The pages that say why a link, a session or a form cannot be used, and the web firewall's 429 page. */
function errorPages(f: Formats) {
  const n = f.number;
  return {
    // Pages that say why a link, a session or a form cannot be used
    linkMalformedTitle: 'This link is incomplete',
    linkMalformed:
      'The activation link is damaged or was cut short when it was copied, so we cannot read it.',
    linkTamperedTitle: 'This link was changed',
    linkTampered: 'Part of the activation link was changed after it was made, so we cannot trust it.',
    linkForeignTitle: 'This link is for another platform',
    linkForeign:
      'This activation link was made by a different platform than the one in its address, so it cannot be used here.',
    linkInvalidTitle: 'This link is not valid',
    linkInvalid: 'The activation link does not contain the details we need to set up your account.',
    linkExpiredTitle: 'This link has expired',
    linkExpired: (expiredAtMs?: number) =>
      expiredAtMs === undefined
        ? 'Activation links work for a limited time.'
        : `Activation links work for a limited time; this one expired on ${f.dateTime(expiredAtMs)}.`,
    linkUsedTitle: 'This link was already used',
    linkUsed: 'This activation link was already used to set up an account. Each link works once.',
    linkUsedNext: (partner: string) => (
      <>
        If you set up your account with it, there is nothing more to do here. If not,{' '}
        <strong>ask {partner} for a fresh link</strong> and tell them this one was used in another browser.
      </>
    ),
    linkFreshNext: (partner: string) => (
      <>
        <strong>Ask {partner} for a fresh link:</strong> tell them this one did not work, and they will have a
        new one made for you. Opening this one again will not help. Nothing was set up with this link.
      </>
    ),
    unknownPartnerTitle: 'This link is not valid',
    unknownPartner:
      'The address of this activation link does not name a platform we know. Ask the platform that sent you for a fresh link.',
    partnerUnavailableTitle: 'Not available at the moment',
    partnerUnavailable: (partner: string) =>
      `Activation through ${partner} is not available at the moment, so nothing was set up. Please try again later, or ask ${partner} about it.`,
    setupEndedTitle: 'This setup is no longer available',
    setupEnded: (partner: string) =>
      `${partner} no longer sponsors this property, so nothing was saved here. If that is unexpected, ask ${partner} about it, or for a fresh activation link.`,
    sessionEndedTitle: 'Your session has ended',
    sessionEnded: (partner: string) =>
      `For your security, this setup session has ended. Open the activation link from ${partner} again; if it has expired, ask ${partner} for a fresh link.`,
    formExpiredTitle: 'This form has expired',
    formExpired:
      'The form could not be checked (it may be from an older page). Go back, reload the page and submit it again.',
    formTooLargeTitle: 'Your text is too long',
    formTooLarge: 'Nothing was saved: what you sent is longer than this form takes.',
    formTooManyEntries: 'It has more entries than the form shows.',
    formTooLargeNext: 'Go back, shorten it, and send the form again.',
    overlongField: (field: TextField, length: number, max: number) =>
      `${FIELD_NAMES[field]} has ${n(length)} characters; it takes at most ${n(max)}.`,
    tryAgainTitle: 'Please try again in a moment',
    tryAgain:
      'We could not finish this step just now. Nothing was lost: go back and submit again, or reload this page in a few seconds.',
    faultTitle: 'Something went wrong',
    faultDetail: (reference: string) => (
      <>
        This is a fault on our side and nothing was changed. Try again in a few minutes; if it persists,
        contact us quoting reference <code>{reference}</code>.
      </>
    ),

    // The web firewall's 429 page (static: every language on one page)
    firewallTitle: 'Too many requests from your network',
    firewallWhat:
      'These pages were asked for too often from your network, so we are pausing them for you for a moment to keep them available for everyone.',
    firewallNext: (wait: string) =>
      `Wait ${wait}, then reload this page. Your link keeps working. If you were sending a form, it was not saved: send it again after the wait.`,
  };
}

const FIELD_NAMES: Record<TextField, string> = {
  property_name: 'The property name',
  checkin_instructions: 'The check-in instructions',
  question: 'A question',
  answer: 'An answer',
  title: 'An offer title',
  description: 'An offer description',
};

/** Each section of the catalogue: what every language's section of that name provides. */
export type ShellMessages = ReturnType<typeof shell>;
export type WizardStepMessages = ReturnType<typeof wizardSteps>;
export type ReviewMessages = ReturnType<typeof review>;
export type ErrorPageMessages = ReturnType<typeof errorPages>;

/** What every language's catalogue provides: the English catalogue's keys, with the same parameters. */
export type Messages = ReturnType<typeof en>;
