import type { TextField } from '../form-fields';
import type { ErrorPageMessages, Messages, ReviewMessages, ShellMessages, WizardStepMessages } from './en';
import type { Formats } from './format';
import { formatsFor } from './format';
import { PartnerLink } from './partner-link';

/** The host pages in Spanish (formal: usted). */
export function es(): Messages {
  const f = formatsFor('es');
  return { ...shell(), ...wizardSteps(f), ...review(f), ...errorPages(f) };
}

/** The frame of every host page, the marketplace, the wizard's frame and the choice between two setups. */
function shell(): ShellMessages {
  return {
    sponsoredBy: 'Patrocinado por',
    languageSwitch: 'Idioma',
    progressLabel: 'Progreso',
    stageProducts: 'Productos',
    stageDone: 'Listo',
    backTo: (partner) => `Volver a ${partner}`,

    marketplaceTitle: 'Elija sus productos',
    welcomeHeading: (name) => `Le damos la bienvenida, ${name}`,
    marketplaceLead: (partner) =>
      `${partner} patrocina su cuenta: elija los productos que desea activar. No tiene que pagar nada.`,
    noProductsOffered: (partner) =>
      `Ninguno de los productos de este enlace forma ya parte de la oferta de ${partner}. Pida a ${partner} un enlace nuevo.`,
    productsFor: (email) => `Productos para ${email}`,
    activateSelected: 'Activar los productos seleccionados',
    onlyListedProducts: 'Solo se pueden activar los productos que aparecen aquí. Elija entre ellos.',
    chooseAtLeastOne: 'Elija al menos un producto para activar.',
    propertyTakenTitle: 'Este alojamiento ya está configurado',
    propertyTaken: (partner) =>
      `${partner} ya configuró este alojamiento para otra cuenta. Pida a ${partner} que compruebe la dirección de correo electrónico de su enlace. No se ha cambiado nada.`,

    saveAndContinue: 'Guardar y continuar',
    backButton: 'Atrás',
    savedOnContinue: 'Cada paso se guarda al continuar o al volver atrás.',
    pleaseCheck: 'Revise lo siguiente:',

    sessionChoiceTitle: 'Tiene una configuración en curso',
    sessionChoiceCurrent: (current, partner) => `Este navegador está configurando ${current} con ${partner}.`,
    sessionChoiceNew: (name) =>
      `El enlace que acaba de abrir es para ${name}. Si empieza con él, termina la configuración en curso en este navegador; lo que ya guardó se conserva.`,
    sessionDoneTitle: 'Terminó una configuración en este navegador',
    sessionDoneCurrent: (current, partner) =>
      `En este navegador se terminó la configuración de ${current} con ${partner}.`,
    sessionDoneNew: (name) =>
      `El enlace que acaba de abrir es para ${name}. Si empieza con él, la configuración terminada queda como está; puede cambiar sus respuestas más adelante desde su propio enlace.`,
    openMySetup: 'Abrir mi configuración terminada',
    continueMySetup: 'Continuar mi configuración',
    startWithNewLink: 'Empezar con el nuevo enlace',
  };
}

/** The wizard's steps (property and check-in, questions, offers): their labels, hints and errors. */
function wizardSteps(f: Formats): WizardStepMessages {
  const n = f.number;
  return {
    detailsTitle: 'Su alojamiento y la llegada',
    detailsStage: 'Alojamiento',
    propertyName: 'Nombre del alojamiento',
    checkinInstructions: 'Instrucciones de llegada',
    propertyNameHelp: (partner) =>
      `El nombre con el que los huéspedes conocen el alojamiento. Empieza con el nombre que ${partner} nos dio para usted: cámbielo si no es el del alojamiento.`,
    checkinHelp:
      'Lo que necesitan los huéspedes al llegar: horario, detalles de la dirección, llaves o códigos, aparcamiento.',
    errorPropertyName: (max) =>
      `Nombre del alojamiento: escriba de 1 a ${n(max)} caracteres en una sola línea.`,
    errorCheckin: (min, max) =>
      `Instrucciones de llegada: escriba de ${n(min)} a ${n(max)} caracteres, por ejemplo dónde están las llaves y a partir de qué hora.`,
    errorCheckinCharacters:
      'Instrucciones de llegada: elimine los caracteres invisibles de control o de dirección del texto (se admiten saltos de línea y tabulaciones).',

    faqsTitle: 'Preguntas de sus huéspedes',
    faqsStage: 'Preguntas',
    faqsIntro:
      'Añada las preguntas que más hacen los huéspedes, con sus respuestas. Las filas vacías se ignoran.',
    addAnotherQuestion: 'Añadir otra pregunta',
    questionNumber: (number) => `Pregunta ${n(number)}`,
    questionLabel: 'Pregunta',
    answerLabel: 'Respuesta',
    errorFaqIncomplete: (number) => `Pregunta ${n(number)}: rellene tanto la pregunta como su respuesta.`,
    errorFaqTooLong: (number, questionMax, answerMax) =>
      `Pregunta ${n(number)}: las preguntas no deben superar los ${n(questionMax)} caracteres ni las respuestas los ${n(answerMax)}.`,
    errorFaqQuestionLine: (number) =>
      `Pregunta ${n(number)}: escriba la pregunta en una sola línea, sin caracteres de control ni de dirección del texto.`,
    errorFaqAnswerCharacters: (number) =>
      `Pregunta ${n(number)}: elimine de la respuesta los caracteres invisibles de control o de dirección del texto (se admiten saltos de línea y tabulaciones).`,
    errorFaqNone: 'Añada al menos una pregunta frecuente de sus huéspedes, con su respuesta.',
    errorFaqTooMany: (max) => `Añada como máximo ${n(max)} preguntas.`,

    upsellsTitle: 'Ofertas para sus huéspedes',
    upsellsStage: 'Ofertas',
    upsellsIntro:
      'Extras que los huéspedes pueden reservar antes o durante su estancia, como la llegada anticipada o el traslado desde el aeropuerto. Puede dejar este paso vacío.',
    offerNumber: (number) => `Oferta ${n(number)}`,
    offerTitle: 'Título',
    offerDescription: 'Descripción',
    addAnotherOffer: 'Añadir otra oferta',
    guestPrice: 'Precio para el huésped',
    priceHint: (examples) => `Un número, por ejemplo ${examples[0]} o ${examples[1]}.`,
    currencyLabel: 'Moneda',
    errorOfferTitle: (number, max) =>
      `Oferta ${n(number)}: póngale un título de hasta ${n(max)} caracteres, en una sola línea y sin caracteres de control ni de dirección del texto.`,
    errorOfferDescription: (number, max) =>
      `Oferta ${n(number)}: la descripción no debe superar los ${n(max)} caracteres.`,
    errorOfferDescriptionCharacters: (number) =>
      `Oferta ${n(number)}: elimine de la descripción los caracteres invisibles de control o de dirección del texto (se admiten saltos de línea y tabulaciones).`,
    errorOfferPrice: (number, examples) =>
      `Oferta ${n(number)}: escriba el precio para el huésped como un número, por ejemplo ${examples[0]} o ${examples[1]}.`,
    errorOfferPriceNegative: (number) =>
      `Oferta ${n(number)}: un precio no puede ser negativo; escriba 0 si la oferta es gratuita.`,
    errorOfferPriceDecimals: (number, example) =>
      `Oferta ${n(number)}: un precio tiene como máximo dos decimales, por ejemplo ${example}.`,
    errorOfferPriceTooHigh: (number, max) => `Oferta ${n(number)}: una oferta cuesta como máximo ${max}.`,
    errorOfferCurrency: (number) => `Oferta ${n(number)}: elija una moneda.`,
    errorOfferTooMany: (max) => `Añada como máximo ${n(max)} ofertas.`,
  };
}

/** The review step and the closing page. */
function review(f: Formats): ReviewMessages {
  const n = f.number;
  return {
    reviewTitle: 'Revisar y terminar',
    reviewStage: 'Revisión',
    activeProducts: (products) => `Productos activos: ${f.list(products)}.`,
    reviewCheckin: 'Llegada',
    notFilledIn: (step) => `Aún sin rellenar (paso ${n(step)}).`,
    missingCheckin: (step) => `Faltan las instrucciones de llegada (paso ${n(step)}).`,
    reviewQuestions: (count) => `Preguntas (${n(count)})`,
    missingFaqs: (step) => `Añada al menos una pregunta con su respuesta (paso ${n(step)}).`,
    reviewOffers: (count) => `Ofertas (${n(count)})`,
    noOffers: 'Sin ofertas: los huéspedes no verán ninguna.',
    offerSummary: (offer) => (
      <>
        <strong>{offer.title}</strong>, {offer.price}
        {offer.description ? `: ${offer.description}` : '.'}
      </>
    ),
    changeLater: (partner) =>
      `Para cambiar sus respuestas más adelante, pida a ${partner} un nuevo enlace de activación: le llevará de nuevo a estos pasos con las respuestas que guardó.`,
    finishSetup: 'Terminar la configuración',
    saveChanges: 'Guardar mis cambios',

    doneTitle: 'Todo listo',
    setupComplete: 'Su configuración está completa.',
    nowActive: (products, property) => `Ahora activo para ${property}: ${f.list(products)}.`,
    knowledgeSummary: (known, property) => `Conoce ${f.list(known)} de ${property}.`,
    knowledgeOnItsWay: (known, property) =>
      `En cuanto se envíen sus respuestas, conocerá ${f.list(known)} de ${property}. Vuelva a cargar la página para ver cuándo se han enviado.`,
    answersOnTheirWay: (product) => `Sus respuestas están en camino a «${product}».`,
    unsentChanges:
      'Ha cambiado respuestas después de enviarlas: los cambios están guardados aquí, pero aún no se han enviado.',
    reviewAndSend: 'Revisar y enviar',
    changeAnswers: 'Cambiar sus respuestas',
    knownCheckin: 'las instrucciones de llegada',
    knownAnswers: (count) => f.plural(count, { one: '# respuesta', other: '# respuestas' }),
    knownOffers: (count) => f.plural(count, { one: '# oferta', other: '# ofertas' }),
    closeTab: (partner, website) => (
      <>
        Puede cerrar esta pestaña y volver a <PartnerLink name={partner} website={website} />.
      </>
    ),
  };
}

/** The pages that say why a link, a session or a form cannot be used, and the web firewall's 429 page. */
function errorPages(f: Formats): ErrorPageMessages {
  const n = f.number;
  return {
    linkMalformedTitle: 'Este enlace está incompleto',
    linkMalformed:
      'El enlace de activación está dañado o se cortó al copiarlo, por lo que no podemos leerlo.',
    linkTamperedTitle: 'Este enlace ha sido modificado',
    linkTampered:
      'Parte del enlace de activación se modificó después de crearse, por lo que no podemos confiar en él.',
    linkForeignTitle: 'Este enlace es de otra plataforma',
    linkForeign:
      'Este enlace de activación lo creó una plataforma distinta de la que figura en su dirección, por lo que no se puede usar aquí.',
    linkInvalidTitle: 'Este enlace no es válido',
    linkInvalid: 'El enlace de activación no contiene los datos que necesitamos para configurar su cuenta.',
    linkExpiredTitle: 'Este enlace ha caducado',
    linkExpired: (expiredAtMs) =>
      expiredAtMs === undefined
        ? 'Los enlaces de activación funcionan durante un tiempo limitado.'
        : `Los enlaces de activación funcionan durante un tiempo limitado; este caducó el ${f.dateTime(expiredAtMs)}.`,
    linkUsedTitle: 'Este enlace ya se ha utilizado',
    linkUsed:
      'Este enlace de activación ya se utilizó para configurar una cuenta. Cada enlace funciona una sola vez.',
    linkUsedNext: (partner) => (
      <>
        Si configuró su cuenta con él, no tiene que hacer nada más aquí. Si no,{' '}
        <strong>pida a {partner} un enlace nuevo</strong> e indíquele que este se utilizó en otro navegador.
      </>
    ),
    linkFreshNext: (partner) => (
      <>
        <strong>Pida a {partner} un enlace nuevo:</strong> dígale que este no ha funcionado y le harán llegar
        uno nuevo. Volver a abrir este no servirá. Con este enlace no se ha configurado nada.
      </>
    ),
    unknownPartnerTitle: 'Este enlace no es válido',
    unknownPartner:
      'La dirección de este enlace de activación no corresponde a ninguna plataforma que conozcamos. Pida un enlace nuevo a la plataforma que se lo envió.',
    partnerUnavailableTitle: 'No disponible en este momento',
    partnerUnavailable: (partner) =>
      `La activación a través de ${partner} no está disponible en este momento, por lo que no se ha configurado nada. Vuelva a intentarlo más tarde o consulte a ${partner}.`,
    setupEndedTitle: 'Esta configuración ya no está disponible',
    setupEnded: (partner) =>
      `${partner} ya no patrocina este alojamiento, así que aquí no se ha guardado nada. Si no lo esperaba, consulte a ${partner} o pídale un enlace de activación nuevo.`,
    sessionEndedTitle: 'Su sesión ha finalizado',
    sessionEnded: (partner) =>
      `Por su seguridad, esta sesión de configuración ha finalizado. Vuelva a abrir el enlace de activación de ${partner}; si ha caducado, pida a ${partner} un enlace nuevo.`,
    formExpiredTitle: 'Este formulario ha caducado',
    formExpired:
      'No se pudo comprobar el formulario (puede que proceda de una página anterior). Vuelva atrás, recargue la página y envíelo de nuevo.',
    formTooLargeTitle: 'Su texto es demasiado largo',
    formTooLarge: 'No se ha guardado nada: lo que envió supera lo que admite este formulario.',
    formTooManyEntries: 'Contiene más entradas de las que muestra el formulario.',
    formTooLargeNext: 'Vuelva atrás, acórtelo y envíe el formulario de nuevo.',
    overlongField: (field, length, max) =>
      `${FIELD_NAMES[field]} tiene ${n(length)} caracteres; se admiten como máximo ${n(max)}.`,
    tryAgainTitle: 'Vuelva a intentarlo en un momento',
    tryAgain:
      'No hemos podido completar este paso ahora mismo. No se ha perdido nada: vuelva atrás y envíelo de nuevo, o recargue esta página en unos segundos.',
    faultTitle: 'Algo ha fallado',
    faultDetail: (reference) => (
      <>
        Se trata de un error por nuestra parte y no se ha cambiado nada. Inténtelo de nuevo en unos minutos;
        si el problema continúa, póngase en contacto con nosotros indicando la referencia{' '}
        <code>{reference}</code>.
      </>
    ),

    firewallTitle: 'Demasiadas solicitudes desde su red',
    firewallWhat:
      'Estas páginas se han solicitado demasiadas veces desde su red y se han pausado un momento para usted.',
    firewallNext: (wait) =>
      `Espere ${wait} y vuelva a cargar esta página. Su enlace sigue funcionando; si estaba enviando un formulario, no se guardó: envíelo de nuevo después.`,
  };
}

const FIELD_NAMES: Record<TextField, string> = {
  property_name: 'El nombre del alojamiento',
  checkin_instructions: 'El texto de las instrucciones de llegada',
  question: 'Una pregunta',
  answer: 'Una respuesta',
  title: 'Un título de oferta',
  description: 'Una descripción de oferta',
};
